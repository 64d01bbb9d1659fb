"""Webhook signatures: what Engram sends verifies with the Standard Webhooks library and with the
library-free snippet in docs/webhooks.md (copied here as the docs show it), and nothing else does."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from datetime import UTC, datetime, timedelta

import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from app.webhooks import signing

BODY = '{"id": "e1", "type": "user.purged", "data": {"user_id": "u"}}'


def verify(secret: str, raw_body: bytes, headers: dict[str, str], tolerance: int = 300) -> bool:
    """docs/webhooks.md, "Without a library"."""
    msg_id, ts = headers["webhook-id"], headers["webhook-timestamp"]
    if abs(time.time() - int(ts)) > tolerance:
        return False  # too old (a replay) or too far ahead
    key = base64.b64decode(secret.removeprefix("whsec_"))
    expected = base64.b64encode(
        hmac.new(key, f"{msg_id}.{ts}.".encode() + raw_body, hashlib.sha256).digest()
    ).decode()
    return any(
        hmac.compare_digest(expected, sig.split(",", 1)[1])
        for sig in headers["webhook-signature"].split(" ")
        if sig.startswith("v1,")
    )


def test_a_secret_is_32_random_bytes_in_the_standard_format() -> None:
    a, b = signing.new_secret(), signing.new_secret()
    assert a != b and a.startswith("whsec_")
    assert len(base64.b64decode(a.removeprefix("whsec_"))) == 32


def test_the_signature_verifies_both_ways_and_only_with_its_secret() -> None:
    secret, other = signing.new_secret(), signing.new_secret()
    headers = signing.headers(event_id="e1", body=BODY, at=datetime.now(UTC), secrets_=[secret])
    assert headers["webhook-id"] == "e1" and headers["content-type"] == "application/json"
    assert Webhook(secret).verify(BODY.encode(), headers)["type"] == "user.purged"
    assert verify(secret, BODY.encode(), headers)
    assert not verify(other, BODY.encode(), headers)
    assert not verify(secret, BODY.encode() + b" ", headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(other).verify(BODY.encode(), headers)


def test_an_old_timestamp_is_a_replay() -> None:
    secret = signing.new_secret()
    old = datetime.now(UTC) - timedelta(minutes=10)
    headers = signing.headers(event_id="e1", body=BODY, at=old, secrets_=[secret])
    assert not verify(secret, BODY.encode(), headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(secret).verify(BODY.encode(), headers)


def test_during_a_rotation_either_secret_verifies() -> None:
    new, old = signing.new_secret(), signing.new_secret()
    headers = signing.headers(event_id="e1", body=BODY, at=datetime.now(UTC), secrets_=[new, old])
    assert len(headers["webhook-signature"].split(" ")) == 2
    for secret in (new, old):
        assert verify(secret, BODY.encode(), headers)
        Webhook(secret).verify(BODY.encode(), headers)
