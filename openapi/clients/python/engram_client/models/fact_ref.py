from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.fact_ref_metadata import FactRefMetadata


T = TypeVar("T", bound="FactRef")


@_attrs_define
class FactRef:
    """A fact about the user, valid now, relevant to the request.

    Attributes:
        content (str):
        fact_id (UUID):
        kind (str):
        score (float | None): Cosine to `query` (or to the newest user message); null when neither has a vector yet, and
            the facts are ranked by importance.
        valid_from (datetime.datetime):
        metadata (FactRefMetadata | Unset):
    """

    content: str
    fact_id: UUID
    kind: str
    score: float | None
    valid_from: datetime.datetime
    metadata: FactRefMetadata | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        content = self.content

        fact_id = str(self.fact_id)

        kind = self.kind

        score: float | None
        score = self.score

        valid_from = self.valid_from.isoformat()

        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "content": content,
                "fact_id": fact_id,
                "kind": kind,
                "score": score,
                "valid_from": valid_from,
            }
        )
        if metadata is not UNSET:
            field_dict["metadata"] = metadata

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.fact_ref_metadata import FactRefMetadata  # noqa: PLC0415

        d = dict(src_dict)
        content = d.pop("content")

        fact_id = UUID(d.pop("fact_id"))

        kind = d.pop("kind")

        def _parse_score(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        score = _parse_score(d.pop("score"))

        valid_from = datetime.datetime.fromisoformat(d.pop("valid_from"))

        _metadata = d.pop("metadata", UNSET)
        metadata: FactRefMetadata | Unset
        if isinstance(_metadata, Unset):
            metadata = UNSET
        else:
            metadata = FactRefMetadata.from_dict(_metadata)

        fact_ref = cls(
            content=content,
            fact_id=fact_id,
            kind=kind,
            score=score,
            valid_from=valid_from,
            metadata=metadata,
        )

        fact_ref.additional_properties = d
        return fact_ref

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
