from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.fact_kind import FactKind, check_fact_kind
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.fact_patch_metadata_type_0 import FactPatchMetadataType0


T = TypeVar("T", bound="FactPatch")


@_attrs_define
class FactPatch:
    """
    Attributes:
        content (None | str | Unset):
        importance (float | None | Unset):
        invalid_at (datetime.datetime | None | Unset): End the fact at this time (it stays readable with `as_of`).
        kind (FactKind | None | Unset):
        metadata (FactPatchMetadataType0 | None | Unset): JSON merge patch (RFC 7396).
        subject (None | str | Unset): The slot the fact fills, e.g. `home`, `employer`, `likes:jazz` (lower-case).
        topics (list[str] | None | Unset):
    """

    content: None | str | Unset = UNSET
    importance: float | None | Unset = UNSET
    invalid_at: datetime.datetime | None | Unset = UNSET
    kind: FactKind | None | Unset = UNSET
    metadata: FactPatchMetadataType0 | None | Unset = UNSET
    subject: None | str | Unset = UNSET
    topics: list[str] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.fact_patch_metadata_type_0 import FactPatchMetadataType0  # noqa: PLC0415

        content: None | str | Unset
        if isinstance(self.content, Unset):
            content = UNSET
        else:
            content = self.content

        importance: float | None | Unset
        if isinstance(self.importance, Unset):
            importance = UNSET
        else:
            importance = self.importance

        invalid_at: None | str | Unset
        if isinstance(self.invalid_at, Unset):
            invalid_at = UNSET
        elif isinstance(self.invalid_at, datetime.datetime):
            invalid_at = self.invalid_at.isoformat()
        else:
            invalid_at = self.invalid_at

        kind: None | str | Unset
        if isinstance(self.kind, Unset):
            kind = UNSET
        elif isinstance(self.kind, str):
            kind = self.kind
        else:
            kind = self.kind

        metadata: dict[str, Any] | None | Unset
        if isinstance(self.metadata, Unset):
            metadata = UNSET
        elif isinstance(self.metadata, FactPatchMetadataType0):
            metadata = self.metadata.to_dict()
        else:
            metadata = self.metadata

        subject: None | str | Unset
        if isinstance(self.subject, Unset):
            subject = UNSET
        else:
            subject = self.subject

        topics: list[str] | None | Unset
        if isinstance(self.topics, Unset):
            topics = UNSET
        elif isinstance(self.topics, list):
            topics = self.topics

        else:
            topics = self.topics

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if content is not UNSET:
            field_dict["content"] = content
        if importance is not UNSET:
            field_dict["importance"] = importance
        if invalid_at is not UNSET:
            field_dict["invalid_at"] = invalid_at
        if kind is not UNSET:
            field_dict["kind"] = kind
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if subject is not UNSET:
            field_dict["subject"] = subject
        if topics is not UNSET:
            field_dict["topics"] = topics

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.fact_patch_metadata_type_0 import FactPatchMetadataType0  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_content(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        content = _parse_content(d.pop("content", UNSET))

        def _parse_importance(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        importance = _parse_importance(d.pop("importance", UNSET))

        def _parse_invalid_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                invalid_at_type_0 = datetime.datetime.fromisoformat(data)

                return invalid_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        invalid_at = _parse_invalid_at(d.pop("invalid_at", UNSET))

        def _parse_kind(data: object) -> FactKind | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                kind_type_0 = check_fact_kind(data)

                return kind_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FactKind | None | Unset, data)

        kind = _parse_kind(d.pop("kind", UNSET))

        def _parse_metadata(data: object) -> FactPatchMetadataType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                metadata_type_0 = FactPatchMetadataType0.from_dict(data)

                return metadata_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FactPatchMetadataType0 | None | Unset, data)

        metadata = _parse_metadata(d.pop("metadata", UNSET))

        def _parse_subject(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        subject = _parse_subject(d.pop("subject", UNSET))

        def _parse_topics(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                topics_type_0 = cast(list[str], data)

                return topics_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        topics = _parse_topics(d.pop("topics", UNSET))

        fact_patch = cls(
            content=content,
            importance=importance,
            invalid_at=invalid_at,
            kind=kind,
            metadata=metadata,
            subject=subject,
            topics=topics,
        )

        return fact_patch
