from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.job_state import JobState


T = TypeVar("T", bound="ExtractionState")


@_attrs_define
class ExtractionState:
    """
    Attributes:
        extracted_seq (int): Messages up to here have been read for facts.
        job (JobState | None):
        last_seq (int):
        session_id (str):
        pending_changes (int | Unset): Edited or deleted messages whose derived facts and summaries are still to be
            redone. Default: 0.
    """

    extracted_seq: int
    job: JobState | None
    last_seq: int
    session_id: str
    pending_changes: int | Unset = 0
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.job_state import JobState  # noqa: PLC0415

        extracted_seq = self.extracted_seq

        job: dict[str, Any] | None
        if isinstance(self.job, JobState):
            job = self.job.to_dict()
        else:
            job = self.job

        last_seq = self.last_seq

        session_id = self.session_id

        pending_changes = self.pending_changes

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "extracted_seq": extracted_seq,
                "job": job,
                "last_seq": last_seq,
                "session_id": session_id,
            }
        )
        if pending_changes is not UNSET:
            field_dict["pending_changes"] = pending_changes

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.job_state import JobState  # noqa: PLC0415

        d = dict(src_dict)
        extracted_seq = d.pop("extracted_seq")

        def _parse_job(data: object) -> JobState | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                job_type_0 = JobState.from_dict(data)

                return job_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(JobState | None, data)

        job = _parse_job(d.pop("job"))

        last_seq = d.pop("last_seq")

        session_id = d.pop("session_id")

        pending_changes = d.pop("pending_changes", UNSET)

        extraction_state = cls(
            extracted_seq=extracted_seq,
            job=job,
            last_seq=last_seq,
            session_id=session_id,
            pending_changes=pending_changes,
        )

        extraction_state.additional_properties = d
        return extraction_state

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
