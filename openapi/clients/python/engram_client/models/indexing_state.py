from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="IndexingState")


@_attrs_define
class IndexingState:
    """
    Attributes:
        complete (bool): True when every message (and searched fact) in the scope is searchable by meaning, its
            sentences included (nothing pending or refining). `wait_for_indexing_ms` waits for this.
        pending (int): Messages in the scope not yet embedded, plus its current facts not yet embedded when facts were
            searched (0 when only summaries were searched).
        refining (int | Unset): Messages in the scope searchable already whose longest sentences' vectors are still to
            come (a long turn is then found by its whole text and its words only). Default: 0.
    """

    complete: bool
    pending: int
    refining: int | Unset = 0
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        complete = self.complete

        pending = self.pending

        refining = self.refining

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "complete": complete,
                "pending": pending,
            }
        )
        if refining is not UNSET:
            field_dict["refining"] = refining

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        complete = d.pop("complete")

        pending = d.pop("pending")

        refining = d.pop("refining", UNSET)

        indexing_state = cls(
            complete=complete,
            pending=pending,
            refining=refining,
        )

        indexing_state.additional_properties = d
        return indexing_state

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
