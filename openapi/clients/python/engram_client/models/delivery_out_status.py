from typing import Literal

DeliveryOutStatus = Literal["delivered", "failed", "pending"]

DELIVERY_OUT_STATUS_VALUES: set[DeliveryOutStatus] = {
    "delivered",
    "failed",
    "pending",
}


def check_delivery_out_status(value: str) -> DeliveryOutStatus:
    if value in DELIVERY_OUT_STATUS_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {DELIVERY_OUT_STATUS_VALUES!r}")
