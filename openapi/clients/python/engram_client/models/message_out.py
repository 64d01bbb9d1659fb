from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.role import Role, check_role

if TYPE_CHECKING:
    from ..models.message_out_metadata import MessageOutMetadata


T = TypeVar("T", bound="MessageOut")


@_attrs_define
class MessageOut:
    """
    Attributes:
        content (str):
        created_at (datetime.datetime):
        message_id (UUID):
        metadata (MessageOutMetadata):
        name (None | str):
        role (Role):
        seq (int): Position in the session: 1, 2, 3... assigned without gaps.
        session_id (str):
        token_count (int): Tokens of `content` with the configured tokenizer.
        updated_at (datetime.datetime):
    """

    content: str
    created_at: datetime.datetime
    message_id: UUID
    metadata: MessageOutMetadata
    name: None | str
    role: Role
    seq: int
    session_id: str
    token_count: int
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        content = self.content

        created_at = self.created_at.isoformat()

        message_id = str(self.message_id)

        metadata = self.metadata.to_dict()

        name: None | str
        name = self.name

        role: str = self.role

        seq = self.seq

        session_id = self.session_id

        token_count = self.token_count

        updated_at = self.updated_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "content": content,
                "created_at": created_at,
                "message_id": message_id,
                "metadata": metadata,
                "name": name,
                "role": role,
                "seq": seq,
                "session_id": session_id,
                "token_count": token_count,
                "updated_at": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.message_out_metadata import MessageOutMetadata  # noqa: PLC0415

        d = dict(src_dict)
        content = d.pop("content")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        message_id = UUID(d.pop("message_id"))

        metadata = MessageOutMetadata.from_dict(d.pop("metadata"))

        def _parse_name(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        name = _parse_name(d.pop("name"))

        role = check_role(d.pop("role"))

        seq = d.pop("seq")

        session_id = d.pop("session_id")

        token_count = d.pop("token_count")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        message_out = cls(
            content=content,
            created_at=created_at,
            message_id=message_id,
            metadata=metadata,
            name=name,
            role=role,
            seq=seq,
            session_id=session_id,
            token_count=token_count,
            updated_at=updated_at,
        )

        message_out.additional_properties = d
        return message_out

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
