"""Standard Webhooks signatures (https://www.standardwebhooks.com), made by the `standardwebhooks`
library: HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}.{body}` with the endpoint's secret.

The timestamp is signed, so a receiver that refuses timestamps older than a few minutes (the
library's `verify` does: 5 minutes) cannot be replayed a captured request later; the id is the
event's, the same on every retry, so a receiver drops duplicates by it.
"""

from __future__ import annotations

import base64
import secrets
from collections.abc import Sequence
from datetime import datetime

from standardwebhooks.webhooks import Webhook

SECRET_PREFIX = "whsec_"


def new_secret() -> str:
    """`whsec_` + base64 of 32 random bytes: the format Standard Webhooks libraries read."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()


def headers(*, event_id: str, body: str, at: datetime, secrets_: Sequence[str]) -> dict[str, str]:
    """The headers of one try: one `v1,` signature per secret (two during a rotation's grace)."""
    signatures = " ".join(Webhook(s).sign(event_id, at, body) for s in secrets_)
    return {
        "content-type": "application/json",
        "webhook-id": event_id,
        "webhook-timestamp": str(int(at.timestamp())),
        "webhook-signature": signatures,
    }
