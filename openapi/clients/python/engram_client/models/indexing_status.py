from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="IndexingStatus")


@_attrs_define
class IndexingStatus:
    """
    Attributes:
        failed (int): Messages whose embedding failed for good (see /failed).
        lag_seconds (float): How long the oldest due pending message has waited: since it was written (appended, edited,
            imported) or its retry came due; 0 if none.
        pending (int): Messages waiting for their embedding.
        indexed_seq (int | None | Unset): Every message up to this seq is searchable by meaning (session scope only).
        last_seq (int | None | Unset): Newest seq of the session (session scope only).
        refining (int | Unset): Messages searchable already whose longest sentences' vectors are still to come: a
            refinement made after the message's own vector, when no message waits for its own. Default: 0.
        session_id (None | str | Unset):
        user_id (None | str | Unset):
    """

    failed: int
    lag_seconds: float
    pending: int
    indexed_seq: int | None | Unset = UNSET
    last_seq: int | None | Unset = UNSET
    refining: int | Unset = 0
    session_id: None | str | Unset = UNSET
    user_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        failed = self.failed

        lag_seconds = self.lag_seconds

        pending = self.pending

        indexed_seq: int | None | Unset
        if isinstance(self.indexed_seq, Unset):
            indexed_seq = UNSET
        else:
            indexed_seq = self.indexed_seq

        last_seq: int | None | Unset
        if isinstance(self.last_seq, Unset):
            last_seq = UNSET
        else:
            last_seq = self.last_seq

        refining = self.refining

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
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "failed": failed,
                "lag_seconds": lag_seconds,
                "pending": pending,
            }
        )
        if indexed_seq is not UNSET:
            field_dict["indexed_seq"] = indexed_seq
        if last_seq is not UNSET:
            field_dict["last_seq"] = last_seq
        if refining is not UNSET:
            field_dict["refining"] = refining
        if session_id is not UNSET:
            field_dict["session_id"] = session_id
        if user_id is not UNSET:
            field_dict["user_id"] = user_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        failed = d.pop("failed")

        lag_seconds = d.pop("lag_seconds")

        pending = d.pop("pending")

        def _parse_indexed_seq(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        indexed_seq = _parse_indexed_seq(d.pop("indexed_seq", UNSET))

        def _parse_last_seq(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        last_seq = _parse_last_seq(d.pop("last_seq", UNSET))

        refining = d.pop("refining", UNSET)

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

        indexing_status = cls(
            failed=failed,
            lag_seconds=lag_seconds,
            pending=pending,
            indexed_seq=indexed_seq,
            last_seq=last_seq,
            refining=refining,
            session_id=session_id,
            user_id=user_id,
        )

        indexing_status.additional_properties = d
        return indexing_status

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
