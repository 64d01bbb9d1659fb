from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.fact_kind import FactKind, check_fact_kind
from ..models.kind import Kind, check_kind
from ..models.role import Role, check_role
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.score_parts import ScoreParts
    from ..models.search_hit_metadata import SearchHitMetadata


T = TypeVar("T", bound="SearchHit")


@_attrs_define
class SearchHit:
    """
    Attributes:
        content (str):
        created_at (datetime.datetime): When the message was sent, the summary written, or the fact became true (its
            `valid_from`).
        id (UUID): The message_id; for a summary its summary_id, for a fact its fact_id.
        kind (Kind):
        metadata (SearchHitMetadata): The message's metadata, unchanged; for a summary `{"from_seq", "to_seq"}`: the
            seqs its step read; for a fact its own metadata.
        score (float):
        scores (ScoreParts):
        session_id (None | str): The session; for a fact the one it was first read from (none for a fact added over the
            API).
        user_id (str):
        fact_kind (FactKind | None | Unset): A fact's kind (none for other kinds).
        from_seq (int | None | Unset): First seq of the session a summary step read; for a fact, the first of its source
            messages in its session (none for a message or a fact with no source).
        importance (float | None | Unset): A fact's importance, 0..1 (none for other kinds).
        name (None | str | Unset): The message's speaker name (none for a summary or a fact).
        role (None | Role | Unset): The message's role (none for a summary or a fact).
        seq (int | None | Unset): The message's seq; for a summary its `to_seq`: it stands for every message of the
            session up to there (none for a fact).
        source_message_ids (list[UUID] | None | Unset): The messages a summary or fact was made from, so a client can
            cite them: for a summary those of its session from `from_seq` to `to_seq`, for a fact the ones it was read from
            (empty for a fact added over the API). None for a message: it is its own source.
        subject (None | str | Unset): The slot a fact fills, e.g. `home` (if it has one).
        to_seq (int | None | Unset): Last seq of the session a summary step read, or of a fact's source messages.
    """

    content: str
    created_at: datetime.datetime
    id: UUID
    kind: Kind
    metadata: SearchHitMetadata
    score: float
    scores: ScoreParts
    session_id: None | str
    user_id: str
    fact_kind: FactKind | None | Unset = UNSET
    from_seq: int | None | Unset = UNSET
    importance: float | None | Unset = UNSET
    name: None | str | Unset = UNSET
    role: None | Role | Unset = UNSET
    seq: int | None | Unset = UNSET
    source_message_ids: list[UUID] | None | Unset = UNSET
    subject: None | str | Unset = UNSET
    to_seq: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        content = self.content

        created_at = self.created_at.isoformat()

        id = str(self.id)

        kind: str = self.kind

        metadata = self.metadata.to_dict()

        score = self.score

        scores = self.scores.to_dict()

        session_id: None | str
        session_id = self.session_id

        user_id = self.user_id

        fact_kind: None | str | Unset
        if isinstance(self.fact_kind, Unset):
            fact_kind = UNSET
        elif isinstance(self.fact_kind, str):
            fact_kind = self.fact_kind
        else:
            fact_kind = self.fact_kind

        from_seq: int | None | Unset
        if isinstance(self.from_seq, Unset):
            from_seq = UNSET
        else:
            from_seq = self.from_seq

        importance: float | None | Unset
        if isinstance(self.importance, Unset):
            importance = UNSET
        else:
            importance = self.importance

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        role: None | str | Unset
        if isinstance(self.role, Unset):
            role = UNSET
        elif isinstance(self.role, str):
            role = self.role
        else:
            role = self.role

        seq: int | None | Unset
        if isinstance(self.seq, Unset):
            seq = UNSET
        else:
            seq = self.seq

        source_message_ids: list[str] | None | Unset
        if isinstance(self.source_message_ids, Unset):
            source_message_ids = UNSET
        elif isinstance(self.source_message_ids, list):
            source_message_ids = []
            for source_message_ids_type_0_item_data in self.source_message_ids:
                source_message_ids_type_0_item = str(source_message_ids_type_0_item_data)
                source_message_ids.append(source_message_ids_type_0_item)

        else:
            source_message_ids = self.source_message_ids

        subject: None | str | Unset
        if isinstance(self.subject, Unset):
            subject = UNSET
        else:
            subject = self.subject

        to_seq: int | None | Unset
        if isinstance(self.to_seq, Unset):
            to_seq = UNSET
        else:
            to_seq = self.to_seq

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "content": content,
                "created_at": created_at,
                "id": id,
                "kind": kind,
                "metadata": metadata,
                "score": score,
                "scores": scores,
                "session_id": session_id,
                "user_id": user_id,
            }
        )
        if fact_kind is not UNSET:
            field_dict["fact_kind"] = fact_kind
        if from_seq is not UNSET:
            field_dict["from_seq"] = from_seq
        if importance is not UNSET:
            field_dict["importance"] = importance
        if name is not UNSET:
            field_dict["name"] = name
        if role is not UNSET:
            field_dict["role"] = role
        if seq is not UNSET:
            field_dict["seq"] = seq
        if source_message_ids is not UNSET:
            field_dict["source_message_ids"] = source_message_ids
        if subject is not UNSET:
            field_dict["subject"] = subject
        if to_seq is not UNSET:
            field_dict["to_seq"] = to_seq

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.score_parts import ScoreParts  # noqa: PLC0415
        from ..models.search_hit_metadata import SearchHitMetadata  # noqa: PLC0415

        d = dict(src_dict)
        content = d.pop("content")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = UUID(d.pop("id"))

        kind = check_kind(d.pop("kind"))

        metadata = SearchHitMetadata.from_dict(d.pop("metadata"))

        score = d.pop("score")

        scores = ScoreParts.from_dict(d.pop("scores"))

        def _parse_session_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        session_id = _parse_session_id(d.pop("session_id"))

        user_id = d.pop("user_id")

        def _parse_fact_kind(data: object) -> FactKind | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                fact_kind_type_0 = check_fact_kind(data)

                return fact_kind_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FactKind | None | Unset, data)

        fact_kind = _parse_fact_kind(d.pop("fact_kind", UNSET))

        def _parse_from_seq(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        from_seq = _parse_from_seq(d.pop("from_seq", UNSET))

        def _parse_importance(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        importance = _parse_importance(d.pop("importance", UNSET))

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        def _parse_role(data: object) -> None | Role | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                role_type_0 = check_role(data)

                return role_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Role | Unset, data)

        role = _parse_role(d.pop("role", UNSET))

        def _parse_seq(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        seq = _parse_seq(d.pop("seq", UNSET))

        def _parse_source_message_ids(data: object) -> list[UUID] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                source_message_ids_type_0 = []
                _source_message_ids_type_0 = data
                for source_message_ids_type_0_item_data in _source_message_ids_type_0:
                    source_message_ids_type_0_item = UUID(source_message_ids_type_0_item_data)

                    source_message_ids_type_0.append(source_message_ids_type_0_item)

                return source_message_ids_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[UUID] | None | Unset, data)

        source_message_ids = _parse_source_message_ids(d.pop("source_message_ids", UNSET))

        def _parse_subject(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        subject = _parse_subject(d.pop("subject", UNSET))

        def _parse_to_seq(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        to_seq = _parse_to_seq(d.pop("to_seq", UNSET))

        search_hit = cls(
            content=content,
            created_at=created_at,
            id=id,
            kind=kind,
            metadata=metadata,
            score=score,
            scores=scores,
            session_id=session_id,
            user_id=user_id,
            fact_kind=fact_kind,
            from_seq=from_seq,
            importance=importance,
            name=name,
            role=role,
            seq=seq,
            source_message_ids=source_message_ids,
            subject=subject,
            to_seq=to_seq,
        )

        search_hit.additional_properties = d
        return search_hit

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
