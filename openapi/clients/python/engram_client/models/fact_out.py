from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.fact_kind import FactKind, check_fact_kind

if TYPE_CHECKING:
    from ..models.fact_out_metadata import FactOutMetadata


T = TypeVar("T", bound="FactOut")


@_attrs_define
class FactOut:
    """
    Attributes:
        actor (str): `system` (extracted) or `api` (added by hand).
        content (str):
        created_at (datetime.datetime):
        current_importance (float): `importance` faded by the time since the last mention (ENGRAM_FACT_HALF_LIFE_DAYS).
        exclusive (bool):
        fact_id (UUID):
        importance (float): As stored (set at extraction, raised by new mentions).
        invalid_at (datetime.datetime | None): When it stopped being true; null while it holds.
        kind (FactKind):
        last_mentioned_at (datetime.datetime):
        last_used_at (datetime.datetime | None): When it was last put in a memory context.
        mention_count (int):
        metadata (FactOutMetadata):
        session_id (None | str): The session it was first read from.
        source_message_ids (list[UUID]):
        speaker (None | str): Whom the fact is about: null for the user; the `name` of another person who speaks in the
            user's sessions (sent as `assistant` with a `name`). Each person's slots are their own.
        subject (None | str):
        superseded_by (None | UUID): The fact that replaced it.
        topics (list[str]):
        updated_at (datetime.datetime):
        user_id (str):
        valid_from (datetime.datetime):
    """

    actor: str
    content: str
    created_at: datetime.datetime
    current_importance: float
    exclusive: bool
    fact_id: UUID
    importance: float
    invalid_at: datetime.datetime | None
    kind: FactKind
    last_mentioned_at: datetime.datetime
    last_used_at: datetime.datetime | None
    mention_count: int
    metadata: FactOutMetadata
    session_id: None | str
    source_message_ids: list[UUID]
    speaker: None | str
    subject: None | str
    superseded_by: None | UUID
    topics: list[str]
    updated_at: datetime.datetime
    user_id: str
    valid_from: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        actor = self.actor

        content = self.content

        created_at = self.created_at.isoformat()

        current_importance = self.current_importance

        exclusive = self.exclusive

        fact_id = str(self.fact_id)

        importance = self.importance

        invalid_at: None | str
        if isinstance(self.invalid_at, datetime.datetime):
            invalid_at = self.invalid_at.isoformat()
        else:
            invalid_at = self.invalid_at

        kind: str = self.kind

        last_mentioned_at = self.last_mentioned_at.isoformat()

        last_used_at: None | str
        if isinstance(self.last_used_at, datetime.datetime):
            last_used_at = self.last_used_at.isoformat()
        else:
            last_used_at = self.last_used_at

        mention_count = self.mention_count

        metadata = self.metadata.to_dict()

        session_id: None | str
        session_id = self.session_id

        source_message_ids = []
        for source_message_ids_item_data in self.source_message_ids:
            source_message_ids_item = str(source_message_ids_item_data)
            source_message_ids.append(source_message_ids_item)

        speaker: None | str
        speaker = self.speaker

        subject: None | str
        subject = self.subject

        superseded_by: None | str
        if isinstance(self.superseded_by, UUID):
            superseded_by = str(self.superseded_by)
        else:
            superseded_by = self.superseded_by

        topics = self.topics

        updated_at = self.updated_at.isoformat()

        user_id = self.user_id

        valid_from = self.valid_from.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "actor": actor,
                "content": content,
                "created_at": created_at,
                "current_importance": current_importance,
                "exclusive": exclusive,
                "fact_id": fact_id,
                "importance": importance,
                "invalid_at": invalid_at,
                "kind": kind,
                "last_mentioned_at": last_mentioned_at,
                "last_used_at": last_used_at,
                "mention_count": mention_count,
                "metadata": metadata,
                "session_id": session_id,
                "source_message_ids": source_message_ids,
                "speaker": speaker,
                "subject": subject,
                "superseded_by": superseded_by,
                "topics": topics,
                "updated_at": updated_at,
                "user_id": user_id,
                "valid_from": valid_from,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.fact_out_metadata import FactOutMetadata  # noqa: PLC0415

        d = dict(src_dict)
        actor = d.pop("actor")

        content = d.pop("content")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        current_importance = d.pop("current_importance")

        exclusive = d.pop("exclusive")

        fact_id = UUID(d.pop("fact_id"))

        importance = d.pop("importance")

        def _parse_invalid_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                invalid_at_type_0 = datetime.datetime.fromisoformat(data)

                return invalid_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        invalid_at = _parse_invalid_at(d.pop("invalid_at"))

        kind = check_fact_kind(d.pop("kind"))

        last_mentioned_at = datetime.datetime.fromisoformat(d.pop("last_mentioned_at"))

        def _parse_last_used_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_used_at_type_0 = datetime.datetime.fromisoformat(data)

                return last_used_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_used_at = _parse_last_used_at(d.pop("last_used_at"))

        mention_count = d.pop("mention_count")

        metadata = FactOutMetadata.from_dict(d.pop("metadata"))

        def _parse_session_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        session_id = _parse_session_id(d.pop("session_id"))

        source_message_ids = []
        _source_message_ids = d.pop("source_message_ids")
        for source_message_ids_item_data in _source_message_ids:
            source_message_ids_item = UUID(source_message_ids_item_data)

            source_message_ids.append(source_message_ids_item)

        def _parse_speaker(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        speaker = _parse_speaker(d.pop("speaker"))

        def _parse_subject(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        subject = _parse_subject(d.pop("subject"))

        def _parse_superseded_by(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                superseded_by_type_0 = UUID(data)

                return superseded_by_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        superseded_by = _parse_superseded_by(d.pop("superseded_by"))

        topics = cast(list[str], d.pop("topics"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        user_id = d.pop("user_id")

        valid_from = datetime.datetime.fromisoformat(d.pop("valid_from"))

        fact_out = cls(
            actor=actor,
            content=content,
            created_at=created_at,
            current_importance=current_importance,
            exclusive=exclusive,
            fact_id=fact_id,
            importance=importance,
            invalid_at=invalid_at,
            kind=kind,
            last_mentioned_at=last_mentioned_at,
            last_used_at=last_used_at,
            mention_count=mention_count,
            metadata=metadata,
            session_id=session_id,
            source_message_ids=source_message_ids,
            speaker=speaker,
            subject=subject,
            superseded_by=superseded_by,
            topics=topics,
            updated_at=updated_at,
            user_id=user_id,
            valid_from=valid_from,
        )

        fact_out.additional_properties = d
        return fact_out

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
