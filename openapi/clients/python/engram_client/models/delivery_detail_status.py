from typing import Literal

DeliveryDetailStatus = Literal["delivered", "failed", "pending"]

DELIVERY_DETAIL_STATUS_VALUES: set[DeliveryDetailStatus] = {
    "delivered",
    "failed",
    "pending",
}


def check_delivery_detail_status(value: str) -> DeliveryDetailStatus:
    if value in DELIVERY_DETAIL_STATUS_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {DELIVERY_DETAIL_STATUS_VALUES!r}")
