from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ScoreParts")


@_attrs_define
class ScoreParts:
    """
    Attributes:
        fused (float): The mode's relevance, 0..1 (hybrid: cosine + weighted keyword and conversation context, or
            normalised RRF with ENGRAM_SEARCH_FUSION=rrf). One scale for every kind: a summary or a fact has no conversation
            around it, so it earns its cosine and keyword parts only (a fact in weighted hybrid also 0.05 x its importance).
        keyword (float | None | Unset): Full-text rank, normalised to 0..1.
        recency (float | None | Unset): 0..1, halves every half_life_hours.
        semantic (float | None | Unset): Cosine similarity to the query (-1..1).
    """

    fused: float
    keyword: float | None | Unset = UNSET
    recency: float | None | Unset = UNSET
    semantic: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        fused = self.fused

        keyword: float | None | Unset
        if isinstance(self.keyword, Unset):
            keyword = UNSET
        else:
            keyword = self.keyword

        recency: float | None | Unset
        if isinstance(self.recency, Unset):
            recency = UNSET
        else:
            recency = self.recency

        semantic: float | None | Unset
        if isinstance(self.semantic, Unset):
            semantic = UNSET
        else:
            semantic = self.semantic

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "fused": fused,
            }
        )
        if keyword is not UNSET:
            field_dict["keyword"] = keyword
        if recency is not UNSET:
            field_dict["recency"] = recency
        if semantic is not UNSET:
            field_dict["semantic"] = semantic

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        fused = d.pop("fused")

        def _parse_keyword(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        keyword = _parse_keyword(d.pop("keyword", UNSET))

        def _parse_recency(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        recency = _parse_recency(d.pop("recency", UNSET))

        def _parse_semantic(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        semantic = _parse_semantic(d.pop("semantic", UNSET))

        score_parts = cls(
            fused=fused,
            keyword=keyword,
            recency=recency,
            semantic=semantic,
        )

        score_parts.additional_properties = d
        return score_parts

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
