from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="JobState")


@_attrs_define
class JobState:
    """
    Attributes:
        attempts (int):
        error (None | str):
        force_to_seq (int | None): A forced run will cover up to here.
        run_after (datetime.datetime):
        status (str): `pending` (queued or running) or `failed` (see `error`).
    """

    attempts: int
    error: None | str
    force_to_seq: int | None
    run_after: datetime.datetime
    status: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempts = self.attempts

        error: None | str
        error = self.error

        force_to_seq: int | None
        force_to_seq = self.force_to_seq

        run_after = self.run_after.isoformat()

        status = self.status

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempts": attempts,
                "error": error,
                "force_to_seq": force_to_seq,
                "run_after": run_after,
                "status": status,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        attempts = d.pop("attempts")

        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))

        def _parse_force_to_seq(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        force_to_seq = _parse_force_to_seq(d.pop("force_to_seq"))

        run_after = datetime.datetime.fromisoformat(d.pop("run_after"))

        status = d.pop("status")

        job_state = cls(
            attempts=attempts,
            error=error,
            force_to_seq=force_to_seq,
            run_after=run_after,
            status=status,
        )

        job_state.additional_properties = d
        return job_state

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
