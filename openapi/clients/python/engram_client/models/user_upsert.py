from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.user_upsert_metadata import UserUpsertMetadata


T = TypeVar("T", bound="UserUpsert")


@_attrs_define
class UserUpsert:
    """
    Attributes:
        metadata (UserUpsertMetadata | Unset): Replaces the stored metadata.
    """

    metadata: UserUpsertMetadata | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if metadata is not UNSET:
            field_dict["metadata"] = metadata

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.user_upsert_metadata import UserUpsertMetadata  # noqa: PLC0415

        d = dict(src_dict)
        _metadata = d.pop("metadata", UNSET)
        metadata: UserUpsertMetadata | Unset
        if isinstance(_metadata, Unset):
            metadata = UNSET
        else:
            metadata = UserUpsertMetadata.from_dict(_metadata)

        user_upsert = cls(
            metadata=metadata,
        )

        return user_upsert
