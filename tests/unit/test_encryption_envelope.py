"""The envelope of encrypted fields (app/crypto/envelope.py) and the field helpers around it."""

from __future__ import annotations

import base64
import os

import pytest

from app.crypto import fields
from app.crypto.envelope import PREFIX, DecryptError, Keyring, KeyringError, key_id_of, new_key

K1, K2 = new_key(), new_key()


def test_seal_opens_only_with_its_key_and_place() -> None:
    ring = Keyring(f"k1:{K1}")
    sealed = ring.seal("I moved to Lisbon", b"t\x1fmessages\x1fcontent\x1fm1")
    assert sealed.startswith(PREFIX + "k1:") and "Lisbon" not in sealed
    assert ring.open(sealed, b"t\x1fmessages\x1fcontent\x1fm1") == "I moved to Lisbon"
    # Another row, field or tenant: the associated data differs, the value does not open.
    for other in (
        b"t\x1fmessages\x1fcontent\x1fm2",
        b"t\x1fsummaries\x1fcontent\x1fm1",
        b"u\x1fmessages\x1fcontent\x1fm1",
    ):
        with pytest.raises(DecryptError, match="does not open"):
            ring.open(sealed, other)
    # A fresh nonce each time: equal texts do not give equal values.
    assert ring.seal("same", b"a") != ring.seal("same", b"a")
    nonces = {base64.b64decode(ring.seal("", b"a").rsplit(":", 1)[1])[:12] for _ in range(3000)}
    assert len(nonces) == 3000  # across several blocks of the nonce pool


def test_tampered_value_is_an_error() -> None:
    ring = Keyring(f"k1:{K1}")
    sealed = ring.seal("secret", b"a")
    body = bytearray(base64.b64decode(sealed.rsplit(":", 1)[1]))
    body[-1] ^= 1
    tampered = sealed.rsplit(":", 1)[0] + ":" + base64.b64encode(bytes(body)).decode()
    with pytest.raises(DecryptError):
        ring.open(tampered, b"a")
    with pytest.raises(DecryptError):
        ring.open(sealed[:-4], b"a")


def test_rotation_reads_old_keys_and_seals_with_the_first() -> None:
    old = Keyring(f"k1:{K1}").seal("kept", b"a")
    ring = Keyring(f"k2:{K2}, k1:{K1}")
    assert ring.primary == "k2" and ring.key_ids == ["k2", "k1"]
    assert ring.open(old, b"a") == "kept"
    assert key_id_of(ring.seal("new", b"a")) == "k2"
    assert key_id_of(old) == "k1" and key_id_of("plain text") is None
    with pytest.raises(DecryptError, match="does not list"):
        Keyring(f"k2:{K2}").open(old, b"a")
    # The same id with other key material: does not open.
    with pytest.raises(DecryptError):
        Keyring(f"k1:{K2}").open(old, b"a")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("k1", "not `id:key`"),
        ("bad id!:" + K1, "not `id:key`"),
        ("k1:" + base64.urlsafe_b64encode(b"short").decode(), "has 5 bytes"),
        ("k1:***", "not base64"),
        (f"k1:{K1},k1:{K2}", "listed twice"),
        (" , ", "lists no key"),
    ],
    ids=["no-key", "bad-id", "short", "not-base64", "twice", "empty"],  # K1, K2 are random: xdist
)
def test_malformed_key_lists_are_named(spec: str, message: str) -> None:
    with pytest.raises(KeyringError, match=message) as err:
        Keyring(spec)
    assert K1 not in str(err.value)  # never a key in an error


def test_fields_off_return_their_input() -> None:
    token = fields.use(None)
    try:
        meta = {"a": 1}
        assert fields.seal_text("x", tenant="t", table="messages", field="content", row=1) == "x"
        assert fields.seal_meta(meta, tenant="t", table="messages", row=1) is meta
        assert fields.filters(meta, "t") == [meta]
    finally:
        fields.done(token)


def test_metadata_values_sealed_with_a_blind_index_filters_match() -> None:
    token = fields.use(Keyring(f"k2:{K2},k1:{K1}"))
    try:
        meta = {"topic": "health", "n": [1, 2]}
        sealed = fields.seal_meta(meta, tenant="t", table="messages", row="m1")
        assert set(sealed) == {"topic", "n"} and "health" not in str(sealed)
        assert fields.open_meta(sealed, tenant="t", table="messages", row="m1") == meta
        with pytest.raises(DecryptError):
            fields.open_meta(sealed, tenant="t", table="messages", row="m2")
        options = fields.filters({"topic": "health"}, "t")
        index = sealed["topic"][fields.INDEX]
        assert options[0] == {"topic": {fields.INDEX: index}}  # the primary's index first
        assert options[-1] == {"topic": "health"}  # rows stored before encryption
        # Another tenant's filter never matches this tenant's value.
        assert fields.filters({"topic": "health"}, "u")[0]["topic"][fields.INDEX] != index
    finally:
        fields.done(token)


def test_a_forked_child_never_repeats_its_parents_nonces() -> None:
    ring = Keyring(f"k1:{K1}")

    def nonce() -> bytes:
        return base64.b64decode(ring.seal("x", b"a").rsplit(":", 1)[1])[:12]

    nonce()  # the parent holds a block of nonces
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its next nonce, sent to the parent
        os.write(write, nonce())
        os._exit(0)
    os.waitpid(pid, 0)
    assert os.read(read, 12) != nonce()
