from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="KeyCreated")


@_attrs_define
class KeyCreated:
    """
    Attributes:
        created_at (datetime.datetime):
        key (str): The API key. Shown once: only its hash is stored.
        key_id (UUID):
        name (str):
        prefix (str): First characters of the key, to recognise it in lists.
        tenant_id (str):
        revoked_at (datetime.datetime | None | Unset):
    """

    created_at: datetime.datetime
    key: str
    key_id: UUID
    name: str
    prefix: str
    tenant_id: str
    revoked_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        key = self.key

        key_id = str(self.key_id)

        name = self.name

        prefix = self.prefix

        tenant_id = self.tenant_id

        revoked_at: None | str | Unset
        if isinstance(self.revoked_at, Unset):
            revoked_at = UNSET
        elif isinstance(self.revoked_at, datetime.datetime):
            revoked_at = self.revoked_at.isoformat()
        else:
            revoked_at = self.revoked_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "key": key,
                "key_id": key_id,
                "name": name,
                "prefix": prefix,
                "tenant_id": tenant_id,
            }
        )
        if revoked_at is not UNSET:
            field_dict["revoked_at"] = revoked_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        key = d.pop("key")

        key_id = UUID(d.pop("key_id"))

        name = d.pop("name")

        prefix = d.pop("prefix")

        tenant_id = d.pop("tenant_id")

        def _parse_revoked_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                revoked_at_type_0 = datetime.datetime.fromisoformat(data)

                return revoked_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        revoked_at = _parse_revoked_at(d.pop("revoked_at", UNSET))

        key_created = cls(
            created_at=created_at,
            key=key,
            key_id=key_id,
            name=name,
            prefix=prefix,
            tenant_id=tenant_id,
            revoked_at=revoked_at,
        )

        key_created.additional_properties = d
        return key_created

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
