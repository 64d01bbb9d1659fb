from typing import Literal

Kind = Literal["facts", "messages", "summaries"]

KIND_VALUES: set[Kind] = {
    "facts",
    "messages",
    "summaries",
}


def check_kind(value: str) -> Kind:
    if value in KIND_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {KIND_VALUES!r}")
