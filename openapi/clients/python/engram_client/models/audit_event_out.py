from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.audit_event_out_ids import AuditEventOutIds


T = TypeVar("T", bound="AuditEventOut")


@_attrs_define
class AuditEventOut:
    """
    Attributes:
        at (datetime.datetime): When the request arrived.
        client (None | str): The client's address.
        id (int): Increasing: later events have larger ids.
        ids (AuditEventOutIds): Other ids the request named (message_id, fact_id, ...).
        key_id (None | UUID): The API key that made the request.
        method (str):
        operation (str): The API operation (its operation id, e.g. `get_memory`).
        request_id (None | str): The request's X-Request-ID.
        session_id (None | str): The session concerned (while the session exists).
        status (int): The HTTP status of the answer.
        user_id (None | str): The user concerned (while the user exists).
    """

    at: datetime.datetime
    client: None | str
    id: int
    ids: AuditEventOutIds
    key_id: None | UUID
    method: str
    operation: str
    request_id: None | str
    session_id: None | str
    status: int
    user_id: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        at = self.at.isoformat()

        client: None | str
        client = self.client

        id = self.id

        ids = self.ids.to_dict()

        key_id: None | str
        if isinstance(self.key_id, UUID):
            key_id = str(self.key_id)
        else:
            key_id = self.key_id

        method = self.method

        operation = self.operation

        request_id: None | str
        request_id = self.request_id

        session_id: None | str
        session_id = self.session_id

        status = self.status

        user_id: None | str
        user_id = self.user_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "at": at,
                "client": client,
                "id": id,
                "ids": ids,
                "key_id": key_id,
                "method": method,
                "operation": operation,
                "request_id": request_id,
                "session_id": session_id,
                "status": status,
                "user_id": user_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.audit_event_out_ids import AuditEventOutIds  # noqa: PLC0415

        d = dict(src_dict)
        at = datetime.datetime.fromisoformat(d.pop("at"))

        def _parse_client(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        client = _parse_client(d.pop("client"))

        id = d.pop("id")

        ids = AuditEventOutIds.from_dict(d.pop("ids"))

        def _parse_key_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                key_id_type_0 = UUID(data)

                return key_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        key_id = _parse_key_id(d.pop("key_id"))

        method = d.pop("method")

        operation = d.pop("operation")

        def _parse_request_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        request_id = _parse_request_id(d.pop("request_id"))

        def _parse_session_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        session_id = _parse_session_id(d.pop("session_id"))

        status = d.pop("status")

        def _parse_user_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        user_id = _parse_user_id(d.pop("user_id"))

        audit_event_out = cls(
            at=at,
            client=client,
            id=id,
            ids=ids,
            key_id=key_id,
            method=method,
            operation=operation,
            request_id=request_id,
            session_id=session_id,
            status=status,
            user_id=user_id,
        )

        audit_event_out.additional_properties = d
        return audit_event_out

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
