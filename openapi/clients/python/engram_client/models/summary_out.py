from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="SummaryOut")


@_attrs_define
class SummaryOut:
    """
    Attributes:
        content (str):
        created_at (datetime.datetime):
        from_seq (int): First seq this step read (the previous step ended just before).
        message_count (int): Messages this step read.
        provider (str): Which summariser wrote it, e.g. `local/condensed`.
        session_id (str):
        summary_id (UUID):
        to_seq (int): This summary stands for every message up to this seq.
        token_count (int):
    """

    content: str
    created_at: datetime.datetime
    from_seq: int
    message_count: int
    provider: str
    session_id: str
    summary_id: UUID
    to_seq: int
    token_count: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        content = self.content

        created_at = self.created_at.isoformat()

        from_seq = self.from_seq

        message_count = self.message_count

        provider = self.provider

        session_id = self.session_id

        summary_id = str(self.summary_id)

        to_seq = self.to_seq

        token_count = self.token_count

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "content": content,
                "created_at": created_at,
                "from_seq": from_seq,
                "message_count": message_count,
                "provider": provider,
                "session_id": session_id,
                "summary_id": summary_id,
                "to_seq": to_seq,
                "token_count": token_count,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        content = d.pop("content")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        from_seq = d.pop("from_seq")

        message_count = d.pop("message_count")

        provider = d.pop("provider")

        session_id = d.pop("session_id")

        summary_id = UUID(d.pop("summary_id"))

        to_seq = d.pop("to_seq")

        token_count = d.pop("token_count")

        summary_out = cls(
            content=content,
            created_at=created_at,
            from_seq=from_seq,
            message_count=message_count,
            provider=provider,
            session_id=session_id,
            summary_id=summary_id,
            to_seq=to_seq,
            token_count=token_count,
        )

        summary_out.additional_properties = d
        return summary_out

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
