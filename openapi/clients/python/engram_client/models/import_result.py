from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.counts import Counts


T = TypeVar("T", bound="ImportResult")


@_attrs_define
class ImportResult:
    """
    Attributes:
        already_present (Counts):
        created (Counts):
        user_id (str): The user the file was imported into (the path's).
    """

    already_present: Counts
    created: Counts
    user_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        already_present = self.already_present.to_dict()

        created = self.created.to_dict()

        user_id = self.user_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "already_present": already_present,
                "created": created,
                "user_id": user_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.counts import Counts  # noqa: PLC0415

        d = dict(src_dict)
        already_present = Counts.from_dict(d.pop("already_present"))

        created = Counts.from_dict(d.pop("created"))

        user_id = d.pop("user_id")

        import_result = cls(
            already_present=already_present,
            created=created,
            user_id=user_id,
        )

        import_result.additional_properties = d
        return import_result

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
