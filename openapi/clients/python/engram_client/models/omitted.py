from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="Omitted")


@_attrs_define
class Omitted:
    """
    Attributes:
        facts (int): Relevant facts that did not fit.
        summary (bool): The summary exists but did not fit the budget.
        unsummarized_messages (int): Messages neither in `messages` nor covered by the included summary. With a role
            filter, counted among the newest ENGRAM_CACHE_WINDOW_MESSAGES messages only.
    """

    facts: int
    summary: bool
    unsummarized_messages: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        facts = self.facts

        summary = self.summary

        unsummarized_messages = self.unsummarized_messages

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "facts": facts,
                "summary": summary,
                "unsummarized_messages": unsummarized_messages,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        facts = d.pop("facts")

        summary = d.pop("summary")

        unsummarized_messages = d.pop("unsummarized_messages")

        omitted = cls(
            facts=facts,
            summary=summary,
            unsummarized_messages=unsummarized_messages,
        )

        omitted.additional_properties = d
        return omitted

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
