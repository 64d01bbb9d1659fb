from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.role import Role, check_role
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.filters_metadata_type_0 import FiltersMetadataType0


T = TypeVar("T", bound="Filters")


@_attrs_define
class Filters:
    """
    Attributes:
        created_after (datetime.datetime | None | Unset): created_at >= this (no zone: UTC). A summary's created_at is
            when it was written, a fact's is its valid_from (when it became true).
        created_before (datetime.datetime | None | Unset): created_at < this (no zone: UTC).
        metadata (FiltersMetadataType0 | None | Unset): JSON containment: hits whose metadata contains this object. A
            summary's metadata is `{"from_seq", "to_seq"}`, so only a filter on those keys can match a summary; a fact's is
            its own.
        roles (list[Role] | None | Unset): Only messages of these roles. A summary mixes every role and a fact has no
            speaker, so a role filter excludes all summaries and facts.
        session_ids (list[str] | None | Unset): Only these sessions; for facts, those first read from one of them (a
            fact added over the API has no session and is excluded).
    """

    created_after: datetime.datetime | None | Unset = UNSET
    created_before: datetime.datetime | None | Unset = UNSET
    metadata: FiltersMetadataType0 | None | Unset = UNSET
    roles: list[Role] | None | Unset = UNSET
    session_ids: list[str] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.filters_metadata_type_0 import FiltersMetadataType0  # noqa: PLC0415

        created_after: None | str | Unset
        if isinstance(self.created_after, Unset):
            created_after = UNSET
        elif isinstance(self.created_after, datetime.datetime):
            created_after = self.created_after.isoformat()
        else:
            created_after = self.created_after

        created_before: None | str | Unset
        if isinstance(self.created_before, Unset):
            created_before = UNSET
        elif isinstance(self.created_before, datetime.datetime):
            created_before = self.created_before.isoformat()
        else:
            created_before = self.created_before

        metadata: dict[str, Any] | None | Unset
        if isinstance(self.metadata, Unset):
            metadata = UNSET
        elif isinstance(self.metadata, FiltersMetadataType0):
            metadata = self.metadata.to_dict()
        else:
            metadata = self.metadata

        roles: list[str] | None | Unset
        if isinstance(self.roles, Unset):
            roles = UNSET
        elif isinstance(self.roles, list):
            roles = []
            for roles_type_0_item_data in self.roles:
                roles_type_0_item: str = roles_type_0_item_data
                roles.append(roles_type_0_item)

        else:
            roles = self.roles

        session_ids: list[str] | None | Unset
        if isinstance(self.session_ids, Unset):
            session_ids = UNSET
        elif isinstance(self.session_ids, list):
            session_ids = self.session_ids

        else:
            session_ids = self.session_ids

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if created_after is not UNSET:
            field_dict["created_after"] = created_after
        if created_before is not UNSET:
            field_dict["created_before"] = created_before
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if roles is not UNSET:
            field_dict["roles"] = roles
        if session_ids is not UNSET:
            field_dict["session_ids"] = session_ids

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.filters_metadata_type_0 import FiltersMetadataType0  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_created_after(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                created_after_type_0 = datetime.datetime.fromisoformat(data)

                return created_after_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        created_after = _parse_created_after(d.pop("created_after", UNSET))

        def _parse_created_before(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                created_before_type_0 = datetime.datetime.fromisoformat(data)

                return created_before_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        created_before = _parse_created_before(d.pop("created_before", UNSET))

        def _parse_metadata(data: object) -> FiltersMetadataType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                metadata_type_0 = FiltersMetadataType0.from_dict(data)

                return metadata_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FiltersMetadataType0 | None | Unset, data)

        metadata = _parse_metadata(d.pop("metadata", UNSET))

        def _parse_roles(data: object) -> list[Role] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                roles_type_0 = []
                _roles_type_0 = data
                for roles_type_0_item_data in _roles_type_0:
                    roles_type_0_item = check_role(roles_type_0_item_data)

                    roles_type_0.append(roles_type_0_item)

                return roles_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Role] | None | Unset, data)

        roles = _parse_roles(d.pop("roles", UNSET))

        def _parse_session_ids(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                session_ids_type_0 = cast(list[str], data)

                return session_ids_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        session_ids = _parse_session_ids(d.pop("session_ids", UNSET))

        filters = cls(
            created_after=created_after,
            created_before=created_before,
            metadata=metadata,
            roles=roles,
            session_ids=session_ids,
        )

        return filters
