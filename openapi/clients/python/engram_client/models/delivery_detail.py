from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.delivery_detail_status import DeliveryDetailStatus, check_delivery_detail_status

if TYPE_CHECKING:
    from ..models.attempt_out import AttemptOut
    from ..models.delivery_detail_payload import DeliveryDetailPayload


T = TypeVar("T", bound="DeliveryDetail")


@_attrs_define
class DeliveryDetail:
    """
    Attributes:
        attempt_log (list[AttemptOut]): Every try, oldest first.
        attempts (int):
        created_at (datetime.datetime):
        delivered_at (datetime.datetime | None):
        delivery_id (int):
        event_id (UUID): The `webhook-id` header: the same on every retry.
        last_error (None | str):
        last_status (int | None):
        next_try_at (datetime.datetime | None): When a pending delivery is tried next.
        payload (DeliveryDetailPayload): The body sent (ids only, never memory content).
        status (DeliveryDetailStatus):
        type_ (str):
        user_id (None | str):
    """

    attempt_log: list[AttemptOut]
    attempts: int
    created_at: datetime.datetime
    delivered_at: datetime.datetime | None
    delivery_id: int
    event_id: UUID
    last_error: None | str
    last_status: int | None
    next_try_at: datetime.datetime | None
    payload: DeliveryDetailPayload
    status: DeliveryDetailStatus
    type_: str
    user_id: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempt_log = []
        for attempt_log_item_data in self.attempt_log:
            attempt_log_item = attempt_log_item_data.to_dict()
            attempt_log.append(attempt_log_item)

        attempts = self.attempts

        created_at = self.created_at.isoformat()

        delivered_at: None | str
        if isinstance(self.delivered_at, datetime.datetime):
            delivered_at = self.delivered_at.isoformat()
        else:
            delivered_at = self.delivered_at

        delivery_id = self.delivery_id

        event_id = str(self.event_id)

        last_error: None | str
        last_error = self.last_error

        last_status: int | None
        last_status = self.last_status

        next_try_at: None | str
        if isinstance(self.next_try_at, datetime.datetime):
            next_try_at = self.next_try_at.isoformat()
        else:
            next_try_at = self.next_try_at

        payload = self.payload.to_dict()

        status: str = self.status

        type_ = self.type_

        user_id: None | str
        user_id = self.user_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempt_log": attempt_log,
                "attempts": attempts,
                "created_at": created_at,
                "delivered_at": delivered_at,
                "delivery_id": delivery_id,
                "event_id": event_id,
                "last_error": last_error,
                "last_status": last_status,
                "next_try_at": next_try_at,
                "payload": payload,
                "status": status,
                "type": type_,
                "user_id": user_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.attempt_out import AttemptOut  # noqa: PLC0415
        from ..models.delivery_detail_payload import DeliveryDetailPayload  # noqa: PLC0415

        d = dict(src_dict)
        attempt_log = []
        _attempt_log = d.pop("attempt_log")
        for attempt_log_item_data in _attempt_log:
            attempt_log_item = AttemptOut.from_dict(attempt_log_item_data)

            attempt_log.append(attempt_log_item)

        attempts = d.pop("attempts")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_delivered_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                delivered_at_type_0 = datetime.datetime.fromisoformat(data)

                return delivered_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        delivered_at = _parse_delivered_at(d.pop("delivered_at"))

        delivery_id = d.pop("delivery_id")

        event_id = UUID(d.pop("event_id"))

        def _parse_last_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_error = _parse_last_error(d.pop("last_error"))

        def _parse_last_status(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        last_status = _parse_last_status(d.pop("last_status"))

        def _parse_next_try_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_try_at_type_0 = datetime.datetime.fromisoformat(data)

                return next_try_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        next_try_at = _parse_next_try_at(d.pop("next_try_at"))

        payload = DeliveryDetailPayload.from_dict(d.pop("payload"))

        status = check_delivery_detail_status(d.pop("status"))

        type_ = d.pop("type")

        def _parse_user_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        user_id = _parse_user_id(d.pop("user_id"))

        delivery_detail = cls(
            attempt_log=attempt_log,
            attempts=attempts,
            created_at=created_at,
            delivered_at=delivered_at,
            delivery_id=delivery_id,
            event_id=event_id,
            last_error=last_error,
            last_status=last_status,
            next_try_at=next_try_at,
            payload=payload,
            status=status,
            type_=type_,
            user_id=user_id,
        )

        delivery_detail.additional_properties = d
        return delivery_detail

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
