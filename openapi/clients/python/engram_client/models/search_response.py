from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.search_response_mode import SearchResponseMode, check_search_response_mode

if TYPE_CHECKING:
    from ..models.indexing_state import IndexingState
    from ..models.search_hit import SearchHit


T = TypeVar("T", bound="SearchResponse")


@_attrs_define
class SearchResponse:
    """
    Attributes:
        indexing (IndexingState):
        mode (SearchResponseMode):
        results (list[SearchHit]):
    """

    indexing: IndexingState
    mode: SearchResponseMode
    results: list[SearchHit]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        indexing = self.indexing.to_dict()

        mode: str = self.mode

        results = []
        for results_item_data in self.results:
            results_item = results_item_data.to_dict()
            results.append(results_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "indexing": indexing,
                "mode": mode,
                "results": results,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.indexing_state import IndexingState  # noqa: PLC0415
        from ..models.search_hit import SearchHit  # noqa: PLC0415

        d = dict(src_dict)
        indexing = IndexingState.from_dict(d.pop("indexing"))

        mode = check_search_response_mode(d.pop("mode"))

        results = []
        _results = d.pop("results")
        for results_item_data in _results:
            results_item = SearchHit.from_dict(results_item_data)

            results.append(results_item)

        search_response = cls(
            indexing=indexing,
            mode=mode,
            results=results,
        )

        search_response.additional_properties = d
        return search_response

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
