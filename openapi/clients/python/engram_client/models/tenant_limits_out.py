from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="TenantLimitsOut")


@_attrs_define
class TenantLimitsOut:
    """
    Attributes:
        tenant_id (str):
        messages_per_day (int | None | Unset): Messages appended per day (0: unlimited; null:
            ENGRAM_QUOTA_MESSAGES_PER_DAY).
        rate_limit_rps (float | None | Unset): Requests per second (0: unlimited; null: ENGRAM_RATE_LIMIT_RPS).
    """

    tenant_id: str
    messages_per_day: int | None | Unset = UNSET
    rate_limit_rps: float | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        tenant_id = self.tenant_id

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

        field_dict.update(
            {
                "tenant_id": tenant_id,
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
        tenant_id = d.pop("tenant_id")

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

        tenant_limits_out = cls(
            tenant_id=tenant_id,
            messages_per_day=messages_per_day,
            rate_limit_rps=rate_limit_rps,
        )

        return tenant_limits_out
