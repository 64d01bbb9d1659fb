from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.job_state import JobState
    from ..models.summary_out import SummaryOut


T = TypeVar("T", bound="SummarizeAccepted")


@_attrs_define
class SummarizeAccepted:
    """
    Attributes:
        done (bool): True when a summary covering `up_to_seq` exists (see `wait_seconds`).
        job (JobState | None): The queued job (None once done).
        session_id (str):
        up_to_seq (int): The forced summary will cover every message up to this seq.
        summary (None | SummaryOut | Unset): The latest summary, once `done`.
    """

    done: bool
    job: JobState | None
    session_id: str
    up_to_seq: int
    summary: None | SummaryOut | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.job_state import JobState  # noqa: PLC0415
        from ..models.summary_out import SummaryOut  # noqa: PLC0415

        done = self.done

        job: dict[str, Any] | None
        if isinstance(self.job, JobState):
            job = self.job.to_dict()
        else:
            job = self.job

        session_id = self.session_id

        up_to_seq = self.up_to_seq

        summary: dict[str, Any] | None | Unset
        if isinstance(self.summary, Unset):
            summary = UNSET
        elif isinstance(self.summary, SummaryOut):
            summary = self.summary.to_dict()
        else:
            summary = self.summary

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "done": done,
                "job": job,
                "session_id": session_id,
                "up_to_seq": up_to_seq,
            }
        )
        if summary is not UNSET:
            field_dict["summary"] = summary

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.job_state import JobState  # noqa: PLC0415
        from ..models.summary_out import SummaryOut  # noqa: PLC0415

        d = dict(src_dict)
        done = d.pop("done")

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

        session_id = d.pop("session_id")

        up_to_seq = d.pop("up_to_seq")

        def _parse_summary(data: object) -> None | SummaryOut | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                summary_type_0 = SummaryOut.from_dict(data)

                return summary_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SummaryOut | Unset, data)

        summary = _parse_summary(d.pop("summary", UNSET))

        summarize_accepted = cls(
            done=done,
            job=job,
            session_id=session_id,
            up_to_seq=up_to_seq,
            summary=summary,
        )

        summarize_accepted.additional_properties = d
        return summarize_accepted

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
