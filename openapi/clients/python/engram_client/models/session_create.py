from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.session_create_metadata import SessionCreateMetadata


T = TypeVar("T", bound="SessionCreate")


@_attrs_define
class SessionCreate:
    """
    Attributes:
        user_id (str): The session's user; created if new.
        metadata (SessionCreateMetadata | Unset):
        session_id (None | str | Unset): Your id for the session; generated if absent.
    """

    user_id: str
    metadata: SessionCreateMetadata | Unset = UNSET
    session_id: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        user_id = self.user_id

        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()

        session_id: None | str | Unset
        if isinstance(self.session_id, Unset):
            session_id = UNSET
        else:
            session_id = self.session_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "user_id": user_id,
            }
        )
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if session_id is not UNSET:
            field_dict["session_id"] = session_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.session_create_metadata import SessionCreateMetadata  # noqa: PLC0415

        d = dict(src_dict)
        user_id = d.pop("user_id")

        _metadata = d.pop("metadata", UNSET)
        metadata: SessionCreateMetadata | Unset
        if isinstance(_metadata, Unset):
            metadata = UNSET
        else:
            metadata = SessionCreateMetadata.from_dict(_metadata)

        def _parse_session_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        session_id = _parse_session_id(d.pop("session_id", UNSET))

        session_create = cls(
            user_id=user_id,
            metadata=metadata,
            session_id=session_id,
        )

        return session_create
