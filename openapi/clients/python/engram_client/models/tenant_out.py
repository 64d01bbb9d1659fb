from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="TenantOut")


@_attrs_define
class TenantOut:
    """
    Attributes:
        created_at (datetime.datetime):
        keys (int): API keys not revoked.
        tenant_id (str):
        users (int):
        webhooks (int): Webhook endpoints.
        messages_per_day (int | None | Unset):
        rate_limit_rps (float | None | Unset):
    """

    created_at: datetime.datetime
    keys: int
    tenant_id: str
    users: int
    webhooks: int
    messages_per_day: int | None | Unset = UNSET
    rate_limit_rps: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        keys = self.keys

        tenant_id = self.tenant_id

        users = self.users

        webhooks = self.webhooks

        messages_per_day: int | None | Unset
        if isinstance(self.messages_per_day, Unset):
            messages_per_day = UNSET
        else:
            messages_per_day = self.messages_per_day

        rate_limit_rps: float | None | Unset
        if isinstance(self.rate_limit_rps, Unset):
            rate_limit_rps = UNSET
        else:
            rate_limit_rps = self.rate_limit_rps

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "keys": keys,
                "tenant_id": tenant_id,
                "users": users,
                "webhooks": webhooks,
            }
        )
        if messages_per_day is not UNSET:
            field_dict["messages_per_day"] = messages_per_day
        if rate_limit_rps is not UNSET:
            field_dict["rate_limit_rps"] = rate_limit_rps

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        keys = d.pop("keys")

        tenant_id = d.pop("tenant_id")

        users = d.pop("users")

        webhooks = d.pop("webhooks")

        def _parse_messages_per_day(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        messages_per_day = _parse_messages_per_day(d.pop("messages_per_day", UNSET))

        def _parse_rate_limit_rps(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        rate_limit_rps = _parse_rate_limit_rps(d.pop("rate_limit_rps", UNSET))

        tenant_out = cls(
            created_at=created_at,
            keys=keys,
            tenant_id=tenant_id,
            users=users,
            webhooks=webhooks,
            messages_per_day=messages_per_day,
            rate_limit_rps=rate_limit_rps,
        )

        tenant_out.additional_properties = d
        return tenant_out

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
