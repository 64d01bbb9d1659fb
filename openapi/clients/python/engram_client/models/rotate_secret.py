from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="RotateSecret")


@_attrs_define
class RotateSecret:
    """
    Attributes:
        grace_seconds (int | Unset): How long deliveries stay signed with the old secret too (0: not at all). Default:
            86400.
    """

    grace_seconds: int | Unset = 86400

    def to_dict(self) -> dict[str, Any]:
        grace_seconds = self.grace_seconds

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if grace_seconds is not UNSET:
            field_dict["grace_seconds"] = grace_seconds

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        grace_seconds = d.pop("grace_seconds", UNSET)

        rotate_secret = cls(
            grace_seconds=grace_seconds,
        )

        return rotate_secret
