"""How derived work is retried: exponential backoff, then a `failed` state after the last attempt.

One policy for every derived step (ENGRAM_WORKER_MAX_ATTEMPTS, _BACKOFF_SECONDS, _BACKOFF_MAX_SECONDS)
and one for webhook deliveries (ENGRAM_WEBHOOK_*: a receiver's outage lasts longer than a model's);
each queue writes it in SQL with `next_try` and the policy's `params()`.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.config import Settings


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int
    backoff_seconds: float
    backoff_max_seconds: float

    @classmethod
    def from_settings(cls, settings: Settings) -> RetryPolicy:
        """The derived steps' policy."""
        return cls(
            max_attempts=settings.worker_max_attempts,
            backoff_seconds=settings.worker_backoff_seconds,
            backoff_max_seconds=settings.worker_backoff_max_seconds,
        )

    @classmethod
    def for_webhooks(cls, settings: Settings) -> RetryPolicy:
        """The webhook deliveries' policy."""
        return cls(
            max_attempts=settings.webhook_max_attempts,
            backoff_seconds=settings.webhook_backoff_seconds,
            backoff_max_seconds=settings.webhook_backoff_max_seconds,
        )

    def params(self) -> dict[str, float]:
        """The bind parameters `next_try` and the `:max` attempt check use."""
        return {"max": self.max_attempts, "base": self.backoff_seconds, "cap": self.backoff_max_seconds}


def next_try(attempts: str) -> str:
    """SQL for when to try again after `attempts` (a column or expression) earlier failures:
    `:base` seconds doubling per attempt, at most `:cap`."""
    return f"now() + make_interval(secs => least(:base * power(2, {attempts}), :cap))"
