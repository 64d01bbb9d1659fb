from typing import Literal

Order = Literal["asc", "desc"]

ORDER_VALUES: set[Order] = {
    "asc",
    "desc",
}


def check_order(value: str) -> Order:
    if value in ORDER_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {ORDER_VALUES!r}")
