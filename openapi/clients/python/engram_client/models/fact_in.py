from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.fact_kind import FactKind, check_fact_kind
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.fact_in_metadata import FactInMetadata


T = TypeVar("T", bound="FactIn")


@_attrs_define
class FactIn:
    """
    Attributes:
        content (str): A short statement about the user, e.g. `Lives in Lisbon.`
        exclusive (bool | Unset): The subject holds one value at a time: adding this fact ends the user's current fact
            with the same subject (it is kept, with `invalid_at` and `superseded_by`). Default: False.
        importance (float | Unset):  Default: 0.5.
        kind (FactKind | Unset):
        metadata (FactInMetadata | Unset):
        speaker (None | str | Unset): Whom the fact is about: null for the user; the `name` of another person who speaks
            in the user's sessions (sent as `assistant` with a `name`). Each person's slots are their own.
        subject (None | str | Unset): The slot the fact fills, e.g. `home`, `employer`, `likes:jazz` (lower-case).
        topics (list[str] | Unset):
        valid_from (datetime.datetime | None | Unset): When it became true; default now. No zone means UTC.
    """

    content: str
    exclusive: bool | Unset = False
    importance: float | Unset = 0.5
    kind: FactKind | Unset = UNSET
    metadata: FactInMetadata | Unset = UNSET
    speaker: None | str | Unset = UNSET
    subject: None | str | Unset = UNSET
    topics: list[str] | Unset = UNSET
    valid_from: datetime.datetime | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        content = self.content

        exclusive = self.exclusive

        importance = self.importance

        kind: str | Unset = UNSET
        if not isinstance(self.kind, Unset):
            kind = self.kind

        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()

        speaker: None | str | Unset
        if isinstance(self.speaker, Unset):
            speaker = UNSET
        else:
            speaker = self.speaker

        subject: None | str | Unset
        if isinstance(self.subject, Unset):
            subject = UNSET
        else:
            subject = self.subject

        topics: list[str] | Unset = UNSET
        if not isinstance(self.topics, Unset):
            topics = self.topics

        valid_from: None | str | Unset
        if isinstance(self.valid_from, Unset):
            valid_from = UNSET
        elif isinstance(self.valid_from, datetime.datetime):
            valid_from = self.valid_from.isoformat()
        else:
            valid_from = self.valid_from

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "content": content,
            }
        )
        if exclusive is not UNSET:
            field_dict["exclusive"] = exclusive
        if importance is not UNSET:
            field_dict["importance"] = importance
        if kind is not UNSET:
            field_dict["kind"] = kind
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if speaker is not UNSET:
            field_dict["speaker"] = speaker
        if subject is not UNSET:
            field_dict["subject"] = subject
        if topics is not UNSET:
            field_dict["topics"] = topics
        if valid_from is not UNSET:
            field_dict["valid_from"] = valid_from

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.fact_in_metadata import FactInMetadata  # noqa: PLC0415

        d = dict(src_dict)
        content = d.pop("content")

        exclusive = d.pop("exclusive", UNSET)

        importance = d.pop("importance", UNSET)

        _kind = d.pop("kind", UNSET)
        kind: FactKind | Unset
        if isinstance(_kind, Unset):
            kind = UNSET
        else:
            kind = check_fact_kind(_kind)

        _metadata = d.pop("metadata", UNSET)
        metadata: FactInMetadata | Unset
        if isinstance(_metadata, Unset):
            metadata = UNSET
        else:
            metadata = FactInMetadata.from_dict(_metadata)

        def _parse_speaker(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        speaker = _parse_speaker(d.pop("speaker", UNSET))

        def _parse_subject(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        subject = _parse_subject(d.pop("subject", UNSET))

        topics = cast(list[str], d.pop("topics", UNSET))

        def _parse_valid_from(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                valid_from_type_0 = datetime.datetime.fromisoformat(data)

                return valid_from_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        valid_from = _parse_valid_from(d.pop("valid_from", UNSET))

        fact_in = cls(
            content=content,
            exclusive=exclusive,
            importance=importance,
            kind=kind,
            metadata=metadata,
            speaker=speaker,
            subject=subject,
            topics=topics,
            valid_from=valid_from,
        )

        return fact_in
