from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="EndpointOut")


@_attrs_define
class EndpointOut:
    """
    Attributes:
        created_at (datetime.datetime):
        description (str):
        endpoint_id (UUID):
        events (list[str]): The event types sent there; empty: all of them.
        tenant_id (str):
        updated_at (datetime.datetime):
        url (str):
        previous_secret_expires_at (datetime.datetime | None | Unset): Until then deliveries are also signed with the
            secret before the last rotation.
    """

    created_at: datetime.datetime
    description: str
    endpoint_id: UUID
    events: list[str]
    tenant_id: str
    updated_at: datetime.datetime
    url: str
    previous_secret_expires_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        description = self.description

        endpoint_id = str(self.endpoint_id)

        events = self.events

        tenant_id = self.tenant_id

        updated_at = self.updated_at.isoformat()

        url = self.url

        previous_secret_expires_at: None | str | Unset
        if isinstance(self.previous_secret_expires_at, Unset):
            previous_secret_expires_at = UNSET
        elif isinstance(self.previous_secret_expires_at, datetime.datetime):
            previous_secret_expires_at = self.previous_secret_expires_at.isoformat()
        else:
            previous_secret_expires_at = self.previous_secret_expires_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "description": description,
                "endpoint_id": endpoint_id,
                "events": events,
                "tenant_id": tenant_id,
                "updated_at": updated_at,
                "url": url,
            }
        )
        if previous_secret_expires_at is not UNSET:
            field_dict["previous_secret_expires_at"] = previous_secret_expires_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        description = d.pop("description")

        endpoint_id = UUID(d.pop("endpoint_id"))

        events = cast(list[str], d.pop("events"))

        tenant_id = d.pop("tenant_id")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        url = d.pop("url")

        def _parse_previous_secret_expires_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                previous_secret_expires_at_type_0 = datetime.datetime.fromisoformat(data)

                return previous_secret_expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        previous_secret_expires_at = _parse_previous_secret_expires_at(d.pop("previous_secret_expires_at", UNSET))

        endpoint_out = cls(
            created_at=created_at,
            description=description,
            endpoint_id=endpoint_id,
            events=events,
            tenant_id=tenant_id,
            updated_at=updated_at,
            url=url,
            previous_secret_expires_at=previous_secret_expires_at,
        )

        endpoint_out.additional_properties = d
        return endpoint_out

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
