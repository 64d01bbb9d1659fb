from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.endpoint_create_events_item import EndpointCreateEventsItem, check_endpoint_create_events_item
from ..types import UNSET, Unset

T = TypeVar("T", bound="EndpointCreate")


@_attrs_define
class EndpointCreate:
    """
    Attributes:
        url (str): Where events are POSTed: an http or https URL.
        description (str | Unset): A label for operators. Default: ''.
        events (list[EndpointCreateEventsItem] | Unset): The event types to send; empty: all of them.
    """

    url: str
    description: str | Unset = ""
    events: list[EndpointCreateEventsItem] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        url = self.url

        description = self.description

        events: list[str] | Unset = UNSET
        if not isinstance(self.events, Unset):
            events = []
            for events_item_data in self.events:
                events_item: str = events_item_data
                events.append(events_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "url": url,
            }
        )
        if description is not UNSET:
            field_dict["description"] = description
        if events is not UNSET:
            field_dict["events"] = events

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        url = d.pop("url")

        description = d.pop("description", UNSET)

        _events = d.pop("events", UNSET)
        events: list[EndpointCreateEventsItem] | Unset = UNSET
        if _events is not UNSET:
            events = []
            for events_item_data in _events:
                events_item = check_endpoint_create_events_item(events_item_data)

                events.append(events_item)

        endpoint_create = cls(
            url=url,
            description=description,
            events=events,
        )

        return endpoint_create
