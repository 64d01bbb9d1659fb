from typing import Literal

Mode = Literal["hybrid", "keyword", "semantic"]

MODE_VALUES: set[Mode] = {
    "hybrid",
    "keyword",
    "semantic",
}


def check_mode(value: str) -> Mode:
    if value in MODE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {MODE_VALUES!r}")
