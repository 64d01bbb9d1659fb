from typing import Literal

ListDeliveriesStatusType0 = Literal["delivered", "failed", "pending"]

LIST_DELIVERIES_STATUS_TYPE_0_VALUES: set[ListDeliveriesStatusType0] = {
    "delivered",
    "failed",
    "pending",
}


def check_list_deliveries_status_type_0(value: str) -> ListDeliveriesStatusType0:
    if value in LIST_DELIVERIES_STATUS_TYPE_0_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {LIST_DELIVERIES_STATUS_TYPE_0_VALUES!r}")
