from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="AuditSettings")


@_attrs_define
class AuditSettings:
    """
    Attributes:
        enabled (bool): Record every read and write of the tenant's memory.
        retention_days (int | None | Unset): Days an event is kept (null: ENGRAM_AUDIT_RETENTION_DAYS).
    """

    enabled: bool
    retention_days: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        enabled = self.enabled

        retention_days: int | None | Unset
        if isinstance(self.retention_days, Unset):
            retention_days = UNSET
        else:
            retention_days = self.retention_days

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "enabled": enabled,
            }
        )
        if retention_days is not UNSET:
            field_dict["retention_days"] = retention_days

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        enabled = d.pop("enabled")

        def _parse_retention_days(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        retention_days = _parse_retention_days(d.pop("retention_days", UNSET))

        audit_settings = cls(
            enabled=enabled,
            retention_days=retention_days,
        )

        return audit_settings
