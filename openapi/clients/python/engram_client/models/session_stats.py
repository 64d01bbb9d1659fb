from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.session_stats_messages_by_role import SessionStatsMessagesByRole


T = TypeVar("T", bound="SessionStats")


@_attrs_define
class SessionStats:
    """What a session holds and how far the derived work has got.

    Attributes:
        failed_messages (int): Messages whose embedding failed (see /v1/indexing/failed).
        first_message_at (datetime.datetime | None):
        indexed_messages (int): Messages embedded and searchable by meaning.
        last_message_at (datetime.datetime | None):
        last_retention_at (datetime.datetime | None):
        last_seq (int):
        message_count (int): Messages stored now (after deletes and retention).
        messages_by_role (SessionStatsMessagesByRole):
        pending_messages (int): Messages waiting for their embedding.
        removed_by_retention (int): Messages the retention rules have removed.
        session_id (str):
        summaries (int): Steps in the summary history.
        summarized_messages (int): Stored messages a summary covers.
        summarized_seq (int): Messages up to this seq are covered by the latest summary.
        token_count (int): Sum of their token counts.
        unsummarized_messages (int):
        unsummarized_tokens (int):
        user_id (str):
    """

    failed_messages: int
    first_message_at: datetime.datetime | None
    indexed_messages: int
    last_message_at: datetime.datetime | None
    last_retention_at: datetime.datetime | None
    last_seq: int
    message_count: int
    messages_by_role: SessionStatsMessagesByRole
    pending_messages: int
    removed_by_retention: int
    session_id: str
    summaries: int
    summarized_messages: int
    summarized_seq: int
    token_count: int
    unsummarized_messages: int
    unsummarized_tokens: int
    user_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        failed_messages = self.failed_messages

        first_message_at: None | str
        if isinstance(self.first_message_at, datetime.datetime):
            first_message_at = self.first_message_at.isoformat()
        else:
            first_message_at = self.first_message_at

        indexed_messages = self.indexed_messages

        last_message_at: None | str
        if isinstance(self.last_message_at, datetime.datetime):
            last_message_at = self.last_message_at.isoformat()
        else:
            last_message_at = self.last_message_at

        last_retention_at: None | str
        if isinstance(self.last_retention_at, datetime.datetime):
            last_retention_at = self.last_retention_at.isoformat()
        else:
            last_retention_at = self.last_retention_at

        last_seq = self.last_seq

        message_count = self.message_count

        messages_by_role = self.messages_by_role.to_dict()

        pending_messages = self.pending_messages

        removed_by_retention = self.removed_by_retention

        session_id = self.session_id

        summaries = self.summaries

        summarized_messages = self.summarized_messages

        summarized_seq = self.summarized_seq

        token_count = self.token_count

        unsummarized_messages = self.unsummarized_messages

        unsummarized_tokens = self.unsummarized_tokens

        user_id = self.user_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "failed_messages": failed_messages,
                "first_message_at": first_message_at,
                "indexed_messages": indexed_messages,
                "last_message_at": last_message_at,
                "last_retention_at": last_retention_at,
                "last_seq": last_seq,
                "message_count": message_count,
                "messages_by_role": messages_by_role,
                "pending_messages": pending_messages,
                "removed_by_retention": removed_by_retention,
                "session_id": session_id,
                "summaries": summaries,
                "summarized_messages": summarized_messages,
                "summarized_seq": summarized_seq,
                "token_count": token_count,
                "unsummarized_messages": unsummarized_messages,
                "unsummarized_tokens": unsummarized_tokens,
                "user_id": user_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.session_stats_messages_by_role import SessionStatsMessagesByRole  # noqa: PLC0415

        d = dict(src_dict)
        failed_messages = d.pop("failed_messages")

        def _parse_first_message_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                first_message_at_type_0 = datetime.datetime.fromisoformat(data)

                return first_message_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        first_message_at = _parse_first_message_at(d.pop("first_message_at"))

        indexed_messages = d.pop("indexed_messages")

        def _parse_last_message_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_message_at_type_0 = datetime.datetime.fromisoformat(data)

                return last_message_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_message_at = _parse_last_message_at(d.pop("last_message_at"))

        def _parse_last_retention_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_retention_at_type_0 = datetime.datetime.fromisoformat(data)

                return last_retention_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_retention_at = _parse_last_retention_at(d.pop("last_retention_at"))

        last_seq = d.pop("last_seq")

        message_count = d.pop("message_count")

        messages_by_role = SessionStatsMessagesByRole.from_dict(d.pop("messages_by_role"))

        pending_messages = d.pop("pending_messages")

        removed_by_retention = d.pop("removed_by_retention")

        session_id = d.pop("session_id")

        summaries = d.pop("summaries")

        summarized_messages = d.pop("summarized_messages")

        summarized_seq = d.pop("summarized_seq")

        token_count = d.pop("token_count")

        unsummarized_messages = d.pop("unsummarized_messages")

        unsummarized_tokens = d.pop("unsummarized_tokens")

        user_id = d.pop("user_id")

        session_stats = cls(
            failed_messages=failed_messages,
            first_message_at=first_message_at,
            indexed_messages=indexed_messages,
            last_message_at=last_message_at,
            last_retention_at=last_retention_at,
            last_seq=last_seq,
            message_count=message_count,
            messages_by_role=messages_by_role,
            pending_messages=pending_messages,
            removed_by_retention=removed_by_retention,
            session_id=session_id,
            summaries=summaries,
            summarized_messages=summarized_messages,
            summarized_seq=summarized_seq,
            token_count=token_count,
            unsummarized_messages=unsummarized_messages,
            unsummarized_tokens=unsummarized_tokens,
            user_id=user_id,
        )

        session_stats.additional_properties = d
        return session_stats

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
