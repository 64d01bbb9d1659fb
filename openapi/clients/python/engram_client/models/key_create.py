from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="KeyCreate")


@_attrs_define
class KeyCreate:
    """
    Attributes:
        tenant_id (str): Tenant the key belongs to; created if new.
        name (str | Unset): A label for operators. Default: ''.
    """

    tenant_id: str
    name: str | Unset = ""

    def to_dict(self) -> dict[str, Any]:
        tenant_id = self.tenant_id

        name = self.name

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "tenant_id": tenant_id,
            }
        )
        if name is not UNSET:
            field_dict["name"] = name

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        tenant_id = d.pop("tenant_id")

        name = d.pop("name", UNSET)

        key_create = cls(
            tenant_id=tenant_id,
            name=name,
        )

        return key_create
