from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.job_state import JobState


T = TypeVar("T", bound="ExtractAccepted")


@_attrs_define
class ExtractAccepted:
    """
    Attributes:
        done (bool): True once every message up to `up_to_seq` has been read for facts and no extraction or re-
            derivation job is still due for the session.
        job (JobState | None):
        session_id (str):
        up_to_seq (int):
    """

    done: bool
    job: JobState | None
    session_id: str
    up_to_seq: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.job_state import JobState  # noqa: PLC0415

        done = self.done

        job: dict[str, Any] | None
        if isinstance(self.job, JobState):
            job = self.job.to_dict()
        else:
            job = self.job

        session_id = self.session_id

        up_to_seq = self.up_to_seq

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

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.job_state import JobState  # noqa: PLC0415

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

        extract_accepted = cls(
            done=done,
            job=job,
            session_id=session_id,
            up_to_seq=up_to_seq,
        )

        extract_accepted.additional_properties = d
        return extract_accepted

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
