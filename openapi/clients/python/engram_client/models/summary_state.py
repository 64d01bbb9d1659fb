from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.job_state import JobState
    from ..models.summary_out import SummaryOut


T = TypeVar("T", bound="SummaryState")


@_attrs_define
class SummaryState:
    """Where the session's summary stands.

    Attributes:
        job (JobState | None): Summary work still to do for this session, if any.
        last_seq (int):
        session_id (str):
        summarized_seq (int): Messages up to here are covered by the latest summary.
        summary (None | SummaryOut):
    """

    job: JobState | None
    last_seq: int
    session_id: str
    summarized_seq: int
    summary: None | SummaryOut
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.job_state import JobState  # noqa: PLC0415
        from ..models.summary_out import SummaryOut  # noqa: PLC0415

        job: dict[str, Any] | None
        if isinstance(self.job, JobState):
            job = self.job.to_dict()
        else:
            job = self.job

        last_seq = self.last_seq

        session_id = self.session_id

        summarized_seq = self.summarized_seq

        summary: dict[str, Any] | None
        if isinstance(self.summary, SummaryOut):
            summary = self.summary.to_dict()
        else:
            summary = self.summary

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "job": job,
                "last_seq": last_seq,
                "session_id": session_id,
                "summarized_seq": summarized_seq,
                "summary": summary,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.job_state import JobState  # noqa: PLC0415
        from ..models.summary_out import SummaryOut  # noqa: PLC0415

        d = dict(src_dict)

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

        summarized_seq = d.pop("summarized_seq")

        def _parse_summary(data: object) -> None | SummaryOut:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                summary_type_0 = SummaryOut.from_dict(data)

                return summary_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SummaryOut, data)

        summary = _parse_summary(d.pop("summary"))

        summary_state = cls(
            job=job,
            last_seq=last_seq,
            session_id=session_id,
            summarized_seq=summarized_seq,
            summary=summary,
        )

        summary_state.additional_properties = d
        return summary_state

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
