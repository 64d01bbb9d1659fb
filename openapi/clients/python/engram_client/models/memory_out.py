from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.fact_ref import FactRef
    from ..models.message_out import MessageOut
    from ..models.omitted import Omitted
    from ..models.summary_ref import SummaryRef


T = TypeVar("T", bound="MemoryOut")


@_attrs_define
class MemoryOut:
    """
    Attributes:
        context (str): Summary, facts and messages, rendered for a prompt (docs/api.md).
        facts (list[FactRef]):
        last_seq (int): The session's newest seq when this was read.
        max_tokens (int):
        messages (list[MessageOut]): The newest messages that fit, oldest first.
        omitted (Omitted):
        session_id (str):
        summary (None | SummaryRef):
        token_count (int): Exact tokens of `context` (configured tokenizer) <= max_tokens.
        user_id (str):
    """

    context: str
    facts: list[FactRef]
    last_seq: int
    max_tokens: int
    messages: list[MessageOut]
    omitted: Omitted
    session_id: str
    summary: None | SummaryRef
    token_count: int
    user_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.summary_ref import SummaryRef  # noqa: PLC0415

        context = self.context

        facts = []
        for facts_item_data in self.facts:
            facts_item = facts_item_data.to_dict()
            facts.append(facts_item)

        last_seq = self.last_seq

        max_tokens = self.max_tokens

        messages = []
        for messages_item_data in self.messages:
            messages_item = messages_item_data.to_dict()
            messages.append(messages_item)

        omitted = self.omitted.to_dict()

        session_id = self.session_id

        summary: dict[str, Any] | None
        if isinstance(self.summary, SummaryRef):
            summary = self.summary.to_dict()
        else:
            summary = self.summary

        token_count = self.token_count

        user_id = self.user_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "context": context,
                "facts": facts,
                "last_seq": last_seq,
                "max_tokens": max_tokens,
                "messages": messages,
                "omitted": omitted,
                "session_id": session_id,
                "summary": summary,
                "token_count": token_count,
                "user_id": user_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.fact_ref import FactRef  # noqa: PLC0415
        from ..models.message_out import MessageOut  # noqa: PLC0415
        from ..models.omitted import Omitted  # noqa: PLC0415
        from ..models.summary_ref import SummaryRef  # noqa: PLC0415

        d = dict(src_dict)
        context = d.pop("context")

        facts = []
        _facts = d.pop("facts")
        for facts_item_data in _facts:
            facts_item = FactRef.from_dict(facts_item_data)

            facts.append(facts_item)

        last_seq = d.pop("last_seq")

        max_tokens = d.pop("max_tokens")

        messages = []
        _messages = d.pop("messages")
        for messages_item_data in _messages:
            messages_item = MessageOut.from_dict(messages_item_data)

            messages.append(messages_item)

        omitted = Omitted.from_dict(d.pop("omitted"))

        session_id = d.pop("session_id")

        def _parse_summary(data: object) -> None | SummaryRef:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                summary_type_0 = SummaryRef.from_dict(data)

                return summary_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SummaryRef, data)

        summary = _parse_summary(d.pop("summary"))

        token_count = d.pop("token_count")

        user_id = d.pop("user_id")

        memory_out = cls(
            context=context,
            facts=facts,
            last_seq=last_seq,
            max_tokens=max_tokens,
            messages=messages,
            omitted=omitted,
            session_id=session_id,
            summary=summary,
            token_count=token_count,
            user_id=user_id,
        )

        memory_out.additional_properties = d
        return memory_out

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
