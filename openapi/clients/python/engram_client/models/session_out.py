from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.session_out_metadata import SessionOutMetadata


T = TypeVar("T", bound="SessionOut")


@_attrs_define
class SessionOut:
    """
    Attributes:
        created_at (datetime.datetime):
        ended_at (datetime.datetime | None):
        last_seq (int): seq of the newest message appended (0: none yet).
        metadata (SessionOutMetadata):
        session_id (str):
        updated_at (datetime.datetime):
        user_id (str):
    """

    created_at: datetime.datetime
    ended_at: datetime.datetime | None
    last_seq: int
    metadata: SessionOutMetadata
    session_id: str
    updated_at: datetime.datetime
    user_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        ended_at: None | str
        if isinstance(self.ended_at, datetime.datetime):
            ended_at = self.ended_at.isoformat()
        else:
            ended_at = self.ended_at

        last_seq = self.last_seq

        metadata = self.metadata.to_dict()

        session_id = self.session_id

        updated_at = self.updated_at.isoformat()

        user_id = self.user_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "ended_at": ended_at,
                "last_seq": last_seq,
                "metadata": metadata,
                "session_id": session_id,
                "updated_at": updated_at,
                "user_id": user_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.session_out_metadata import SessionOutMetadata  # noqa: PLC0415

        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_ended_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                ended_at_type_0 = datetime.datetime.fromisoformat(data)

                return ended_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        ended_at = _parse_ended_at(d.pop("ended_at"))

        last_seq = d.pop("last_seq")

        metadata = SessionOutMetadata.from_dict(d.pop("metadata"))

        session_id = d.pop("session_id")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        user_id = d.pop("user_id")

        session_out = cls(
            created_at=created_at,
            ended_at=ended_at,
            last_seq=last_seq,
            metadata=metadata,
            session_id=session_id,
            updated_at=updated_at,
            user_id=user_id,
        )

        session_out.additional_properties = d
        return session_out

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
