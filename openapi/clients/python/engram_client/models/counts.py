from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Counts")


@_attrs_define
class Counts:
    """
    Attributes:
        fact_events (int | Unset):  Default: 0.
        facts (int | Unset):  Default: 0.
        messages (int | Unset):  Default: 0.
        sessions (int | Unset):  Default: 0.
        summaries (int | Unset):  Default: 0.
        users (int | Unset):  Default: 0.
    """

    fact_events: int | Unset = 0
    facts: int | Unset = 0
    messages: int | Unset = 0
    sessions: int | Unset = 0
    summaries: int | Unset = 0
    users: int | Unset = 0
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        fact_events = self.fact_events

        facts = self.facts

        messages = self.messages

        sessions = self.sessions

        summaries = self.summaries

        users = self.users

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if fact_events is not UNSET:
            field_dict["fact_events"] = fact_events
        if facts is not UNSET:
            field_dict["facts"] = facts
        if messages is not UNSET:
            field_dict["messages"] = messages
        if sessions is not UNSET:
            field_dict["sessions"] = sessions
        if summaries is not UNSET:
            field_dict["summaries"] = summaries
        if users is not UNSET:
            field_dict["users"] = users

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        fact_events = d.pop("fact_events", UNSET)

        facts = d.pop("facts", UNSET)

        messages = d.pop("messages", UNSET)

        sessions = d.pop("sessions", UNSET)

        summaries = d.pop("summaries", UNSET)

        users = d.pop("users", UNSET)

        counts = cls(
            fact_events=fact_events,
            facts=facts,
            messages=messages,
            sessions=sessions,
            summaries=summaries,
            users=users,
        )

        counts.additional_properties = d
        return counts

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
