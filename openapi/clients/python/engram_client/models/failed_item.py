from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="FailedItem")


@_attrs_define
class FailedItem:
    """
    Attributes:
        attempts (int):
        error (None | str):
        failed_at (datetime.datetime):
        message_id (UUID):
        seq (int):
        session_id (str):
        user_id (str):
    """

    attempts: int
    error: None | str
    failed_at: datetime.datetime
    message_id: UUID
    seq: int
    session_id: str
    user_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempts = self.attempts

        error: None | str
        error = self.error

        failed_at = self.failed_at.isoformat()

        message_id = str(self.message_id)

        seq = self.seq

        session_id = self.session_id

        user_id = self.user_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempts": attempts,
                "error": error,
                "failed_at": failed_at,
                "message_id": message_id,
                "seq": seq,
                "session_id": session_id,
                "user_id": user_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        attempts = d.pop("attempts")

        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))

        failed_at = datetime.datetime.fromisoformat(d.pop("failed_at"))

        message_id = UUID(d.pop("message_id"))

        seq = d.pop("seq")

        session_id = d.pop("session_id")

        user_id = d.pop("user_id")

        failed_item = cls(
            attempts=attempts,
            error=error,
            failed_at=failed_at,
            message_id=message_id,
            seq=seq,
            session_id=session_id,
            user_id=user_id,
        )

        failed_item.additional_properties = d
        return failed_item

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
