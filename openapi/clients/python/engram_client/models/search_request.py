from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.kind import Kind, check_kind
from ..models.mode import Mode, check_mode
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.filters import Filters
    from ..models.recency import Recency


T = TypeVar("T", bound="SearchRequest")


@_attrs_define
class SearchRequest:
    """
    Attributes:
        query (str): What to look for, in natural language.
        filters (Filters | Unset):
        kinds (list[Kind] | Unset): What to search: `messages`, `summaries` (each step of a session's progressive
            summary), `facts` (the user's facts valid now), or several, ranked together by score.
        limit (int | Unset):  Default: 10.
        min_score (float | None | Unset): Drop hits scoring below this.
        mmr (float | None | Unset): MMR diversity: 0 = off, 1 = most diverse. Removes near-duplicates.
        mode (Mode | Unset):
        recency (None | Recency | Unset): Favour newer hits.
        session_id (None | str | Unset): Only this session. Facts belong to users, not sessions: for facts, the facts of
            this session's user.
        user_id (None | str | Unset): Only this user's data.
        wait_for_indexing_ms (int | Unset): Wait up to this long until everything of the kinds searched in the scope is
            embedded: messages (their longest sentences included), current facts, and summaries (written summaries are
            embedded at once; imported ones by the worker afterwards). Default: 0.
    """

    query: str
    filters: Filters | Unset = UNSET
    kinds: list[Kind] | Unset = UNSET
    limit: int | Unset = 10
    min_score: float | None | Unset = UNSET
    mmr: float | None | Unset = UNSET
    mode: Mode | Unset = UNSET
    recency: None | Recency | Unset = UNSET
    session_id: None | str | Unset = UNSET
    user_id: None | str | Unset = UNSET
    wait_for_indexing_ms: int | Unset = 0

    def to_dict(self) -> dict[str, Any]:
        from ..models.recency import Recency  # noqa: PLC0415

        query = self.query

        filters: dict[str, Any] | Unset = UNSET
        if not isinstance(self.filters, Unset):
            filters = self.filters.to_dict()

        kinds: list[str] | Unset = UNSET
        if not isinstance(self.kinds, Unset):
            kinds = []
            for kinds_item_data in self.kinds:
                kinds_item: str = kinds_item_data
                kinds.append(kinds_item)

        limit = self.limit

        min_score: float | None | Unset
        if isinstance(self.min_score, Unset):
            min_score = UNSET
        else:
            min_score = self.min_score

        mmr: float | None | Unset
        if isinstance(self.mmr, Unset):
            mmr = UNSET
        else:
            mmr = self.mmr

        mode: str | Unset = UNSET
        if not isinstance(self.mode, Unset):
            mode = self.mode

        recency: dict[str, Any] | None | Unset
        if isinstance(self.recency, Unset):
            recency = UNSET
        elif isinstance(self.recency, Recency):
            recency = self.recency.to_dict()
        else:
            recency = self.recency

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

        wait_for_indexing_ms = self.wait_for_indexing_ms

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "query": query,
            }
        )
        if filters is not UNSET:
            field_dict["filters"] = filters
        if kinds is not UNSET:
            field_dict["kinds"] = kinds
        if limit is not UNSET:
            field_dict["limit"] = limit
        if min_score is not UNSET:
            field_dict["min_score"] = min_score
        if mmr is not UNSET:
            field_dict["mmr"] = mmr
        if mode is not UNSET:
            field_dict["mode"] = mode
        if recency is not UNSET:
            field_dict["recency"] = recency
        if session_id is not UNSET:
            field_dict["session_id"] = session_id
        if user_id is not UNSET:
            field_dict["user_id"] = user_id
        if wait_for_indexing_ms is not UNSET:
            field_dict["wait_for_indexing_ms"] = wait_for_indexing_ms

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.filters import Filters  # noqa: PLC0415
        from ..models.recency import Recency  # noqa: PLC0415

        d = dict(src_dict)
        query = d.pop("query")

        _filters = d.pop("filters", UNSET)
        filters: Filters | Unset
        if isinstance(_filters, Unset):
            filters = UNSET
        else:
            filters = Filters.from_dict(_filters)

        _kinds = d.pop("kinds", UNSET)
        kinds: list[Kind] | Unset = UNSET
        if _kinds is not UNSET:
            kinds = []
            for kinds_item_data in _kinds:
                kinds_item = check_kind(kinds_item_data)

                kinds.append(kinds_item)

        limit = d.pop("limit", UNSET)

        def _parse_min_score(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        min_score = _parse_min_score(d.pop("min_score", UNSET))

        def _parse_mmr(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        mmr = _parse_mmr(d.pop("mmr", UNSET))

        _mode = d.pop("mode", UNSET)
        mode: Mode | Unset
        if isinstance(_mode, Unset):
            mode = UNSET
        else:
            mode = check_mode(_mode)

        def _parse_recency(data: object) -> None | Recency | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                recency_type_0 = Recency.from_dict(data)

                return recency_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Recency | Unset, data)

        recency = _parse_recency(d.pop("recency", UNSET))

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

        wait_for_indexing_ms = d.pop("wait_for_indexing_ms", UNSET)

        search_request = cls(
            query=query,
            filters=filters,
            kinds=kinds,
            limit=limit,
            min_score=min_score,
            mmr=mmr,
            mode=mode,
            recency=recency,
            session_id=session_id,
            user_id=user_id,
            wait_for_indexing_ms=wait_for_indexing_ms,
        )

        return search_request
