from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="RetryRequest")


@_attrs_define
class RetryRequest:
    """
    Attributes:
        message_ids (list[UUID] | None | Unset): These only.
        session_id (None | str | Unset): Only this session's failed items.
        user_id (None | str | Unset): Only this user's failed items.
    """

    message_ids: list[UUID] | None | Unset = UNSET
    session_id: None | str | Unset = UNSET
    user_id: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        message_ids: list[str] | None | Unset
        if isinstance(self.message_ids, Unset):
            message_ids = UNSET
        elif isinstance(self.message_ids, list):
            message_ids = []
            for message_ids_type_0_item_data in self.message_ids:
                message_ids_type_0_item = str(message_ids_type_0_item_data)
                message_ids.append(message_ids_type_0_item)

        else:
            message_ids = self.message_ids

        session_id: None | str | Unset
        if isinstance(self.session_id, Unset):
            session_id = UNSET
        else:
            session_id = self.session_id

        user_id: None | str | Unset
        if isinstance(self.user_id, Unset):
            user_id = UNSET
        else:
            user_id = self.user_id

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if message_ids is not UNSET:
            field_dict["message_ids"] = message_ids
        if session_id is not UNSET:
            field_dict["session_id"] = session_id
        if user_id is not UNSET:
            field_dict["user_id"] = user_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_message_ids(data: object) -> list[UUID] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                message_ids_type_0 = []
                _message_ids_type_0 = data
                for message_ids_type_0_item_data in _message_ids_type_0:
                    message_ids_type_0_item = UUID(message_ids_type_0_item_data)

                    message_ids_type_0.append(message_ids_type_0_item)

                return message_ids_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[UUID] | None | Unset, data)

        message_ids = _parse_message_ids(d.pop("message_ids", UNSET))

        def _parse_session_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        session_id = _parse_session_id(d.pop("session_id", UNSET))

        def _parse_user_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        user_id = _parse_user_id(d.pop("user_id", UNSET))

        retry_request = cls(
            message_ids=message_ids,
            session_id=session_id,
            user_id=user_id,
        )

        return retry_request
