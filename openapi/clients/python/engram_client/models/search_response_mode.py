from typing import Literal

SearchResponseMode = Literal["hybrid", "keyword", "semantic"]

SEARCH_RESPONSE_MODE_VALUES: set[SearchResponseMode] = {
    "hybrid",
    "keyword",
    "semantic",
}


def check_search_response_mode(value: str) -> SearchResponseMode:
    if value in SEARCH_RESPONSE_MODE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {SEARCH_RESPONSE_MODE_VALUES!r}")
