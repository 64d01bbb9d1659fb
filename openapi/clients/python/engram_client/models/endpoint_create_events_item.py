from typing import Literal

EndpointCreateEventsItem = Literal[
    "extraction.completed", "facts.changed", "indexing.failed", "summary.created", "user.purged"
]

ENDPOINT_CREATE_EVENTS_ITEM_VALUES: set[EndpointCreateEventsItem] = {
    "extraction.completed",
    "facts.changed",
    "indexing.failed",
    "summary.created",
    "user.purged",
}


def check_endpoint_create_events_item(value: str) -> EndpointCreateEventsItem:
    if value in ENDPOINT_CREATE_EVENTS_ITEM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {ENDPOINT_CREATE_EVENTS_ITEM_VALUES!r}")
