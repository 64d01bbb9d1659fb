from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.session_patch_metadata_type_0 import SessionPatchMetadataType0


T = TypeVar("T", bound="SessionPatch")


@_attrs_define
class SessionPatch:
    """
    Attributes:
        ended (bool | None | Unset): true ends the session (no more appends); false reopens it.
        metadata (None | SessionPatchMetadataType0 | Unset): JSON merge patch (RFC 7396) onto the stored metadata: null
            removes a key.
    """

    ended: bool | None | Unset = UNSET
    metadata: None | SessionPatchMetadataType0 | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.session_patch_metadata_type_0 import SessionPatchMetadataType0  # noqa: PLC0415

        ended: bool | None | Unset
        if isinstance(self.ended, Unset):
            ended = UNSET
        else:
            ended = self.ended

        metadata: dict[str, Any] | None | Unset
        if isinstance(self.metadata, Unset):
            metadata = UNSET
        elif isinstance(self.metadata, SessionPatchMetadataType0):
            metadata = self.metadata.to_dict()
        else:
            metadata = self.metadata

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if ended is not UNSET:
            field_dict["ended"] = ended
        if metadata is not UNSET:
            field_dict["metadata"] = metadata

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.session_patch_metadata_type_0 import SessionPatchMetadataType0  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_ended(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        ended = _parse_ended(d.pop("ended", UNSET))

        def _parse_metadata(data: object) -> None | SessionPatchMetadataType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                metadata_type_0 = SessionPatchMetadataType0.from_dict(data)

                return metadata_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SessionPatchMetadataType0 | Unset, data)

        metadata = _parse_metadata(d.pop("metadata", UNSET))

        session_patch = cls(
            ended=ended,
            metadata=metadata,
        )

        return session_patch
