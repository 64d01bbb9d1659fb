from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.role import Role, check_role
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.message_in_metadata import MessageInMetadata


T = TypeVar("T", bound="MessageIn")


@_attrs_define
class MessageIn:
    """
    Attributes:
        content (str):
        role (Role):
        created_at (datetime.datetime | None | Unset): When it was said (imports); default: now. No zone means UTC.
        metadata (MessageInMetadata | Unset):
        name (None | str | Unset): Speaker name (e.g. the tool or the person).
    """

    content: str
    role: Role
    created_at: datetime.datetime | None | Unset = UNSET
    metadata: MessageInMetadata | Unset = UNSET
    name: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        content = self.content

        role: str = self.role

        created_at: None | str | Unset
        if isinstance(self.created_at, Unset):
            created_at = UNSET
        elif isinstance(self.created_at, datetime.datetime):
            created_at = self.created_at.isoformat()
        else:
            created_at = self.created_at

        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "content": content,
                "role": role,
            }
        )
        if created_at is not UNSET:
            field_dict["created_at"] = created_at
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if name is not UNSET:
            field_dict["name"] = name

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.message_in_metadata import MessageInMetadata  # noqa: PLC0415

        d = dict(src_dict)
        content = d.pop("content")

        role = check_role(d.pop("role"))

        def _parse_created_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                created_at_type_0 = datetime.datetime.fromisoformat(data)

                return created_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        created_at = _parse_created_at(d.pop("created_at", UNSET))

        _metadata = d.pop("metadata", UNSET)
        metadata: MessageInMetadata | Unset
        if isinstance(_metadata, Unset):
            metadata = UNSET
        else:
            metadata = MessageInMetadata.from_dict(_metadata)

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        message_in = cls(
            content=content,
            role=role,
            created_at=created_at,
            metadata=metadata,
            name=name,
        )

        return message_in
