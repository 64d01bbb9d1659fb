from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="FactEventOut")


@_attrs_define
class FactEventOut:
    """
    Attributes:
        actor (str): `system` or `api`.
        created_at (datetime.datetime):
        event (str): ADD, UPDATE, INVALIDATE or DELETE.
        fact_id (UUID):
        id (int):
        new_content (None | str):
        old_content (None | str):
        reason (None | str): extracted, merged, superseded, negated, expired, edited, ...
        related_fact_id (None | UUID): The fact that replaced this one, if any.
        source_message_ids (list[UUID]):
    """

    actor: str
    created_at: datetime.datetime
    event: str
    fact_id: UUID
    id: int
    new_content: None | str
    old_content: None | str
    reason: None | str
    related_fact_id: None | UUID
    source_message_ids: list[UUID]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        actor = self.actor

        created_at = self.created_at.isoformat()

        event = self.event

        fact_id = str(self.fact_id)

        id = self.id

        new_content: None | str
        new_content = self.new_content

        old_content: None | str
        old_content = self.old_content

        reason: None | str
        reason = self.reason

        related_fact_id: None | str
        if isinstance(self.related_fact_id, UUID):
            related_fact_id = str(self.related_fact_id)
        else:
            related_fact_id = self.related_fact_id

        source_message_ids = []
        for source_message_ids_item_data in self.source_message_ids:
            source_message_ids_item = str(source_message_ids_item_data)
            source_message_ids.append(source_message_ids_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "actor": actor,
                "created_at": created_at,
                "event": event,
                "fact_id": fact_id,
                "id": id,
                "new_content": new_content,
                "old_content": old_content,
                "reason": reason,
                "related_fact_id": related_fact_id,
                "source_message_ids": source_message_ids,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        actor = d.pop("actor")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        event = d.pop("event")

        fact_id = UUID(d.pop("fact_id"))

        id = d.pop("id")

        def _parse_new_content(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        new_content = _parse_new_content(d.pop("new_content"))

        def _parse_old_content(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        old_content = _parse_old_content(d.pop("old_content"))

        def _parse_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        reason = _parse_reason(d.pop("reason"))

        def _parse_related_fact_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                related_fact_id_type_0 = UUID(data)

                return related_fact_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        related_fact_id = _parse_related_fact_id(d.pop("related_fact_id"))

        source_message_ids = []
        _source_message_ids = d.pop("source_message_ids")
        for source_message_ids_item_data in _source_message_ids:
            source_message_ids_item = UUID(source_message_ids_item_data)

            source_message_ids.append(source_message_ids_item)

        fact_event_out = cls(
            actor=actor,
            created_at=created_at,
            event=event,
            fact_id=fact_id,
            id=id,
            new_content=new_content,
            old_content=old_content,
            reason=reason,
            related_fact_id=related_fact_id,
            source_message_ids=source_message_ids,
        )

        fact_event_out.additional_properties = d
        return fact_event_out

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
