from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="Recency")


@_attrs_define
class Recency:
    """
    Attributes:
        weight (float): Share of the score given to recency (0: none).
        half_life_hours (float | Unset): Age at which recency counts half. Default: 168.0.
    """

    weight: float
    half_life_hours: float | Unset = 168.0

    def to_dict(self) -> dict[str, Any]:
        weight = self.weight

        half_life_hours = self.half_life_hours

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "weight": weight,
            }
        )
        if half_life_hours is not UNSET:
            field_dict["half_life_hours"] = half_life_hours

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        weight = d.pop("weight")

        half_life_hours = d.pop("half_life_hours", UNSET)

        recency = cls(
            weight=weight,
            half_life_hours=half_life_hours,
        )

        return recency
