from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.message_in import MessageIn


T = TypeVar("T", bound="AppendRequest")


@_attrs_define
class AppendRequest:
    """
    Attributes:
        messages (list[MessageIn]): 1 to ENGRAM_MAX_BATCH_MESSAGES messages.
    """

    messages: list[MessageIn]

    def to_dict(self) -> dict[str, Any]:
        messages = []
        for messages_item_data in self.messages:
            messages_item = messages_item_data.to_dict()
            messages.append(messages_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "messages": messages,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.message_in import MessageIn  # noqa: PLC0415

        d = dict(src_dict)
        messages = []
        _messages = d.pop("messages")
        for messages_item_data in _messages:
            messages_item = MessageIn.from_dict(messages_item_data)

            messages.append(messages_item)

        append_request = cls(
            messages=messages,
        )

        return append_request
