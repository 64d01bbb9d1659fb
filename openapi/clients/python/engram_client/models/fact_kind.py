from typing import Literal

FactKind = Literal["event", "identity", "location", "occupation", "other", "plan", "preference", "relationship"]

FACT_KIND_VALUES: set[FactKind] = {
    "event",
    "identity",
    "location",
    "occupation",
    "other",
    "plan",
    "preference",
    "relationship",
}


def check_fact_kind(value: str) -> FactKind:
    if value in FACT_KIND_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {FACT_KIND_VALUES!r}")
