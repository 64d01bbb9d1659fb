"""The envelope of an encrypted field: `engram-enc:v1:<key id>:<base64(nonce | ciphertext | tag)>`.

AES-256-GCM from `cryptography`, a random 96-bit nonce per value, and associated data that names
the value's place (tenant, table, field, row), so a ciphertext copied into another row or field
fails to open instead of reading as that row's text. The key id travels in the value: a keyring
opens values of every key it lists and seals with its first (the primary), which is what lets
keys rotate (app/crypto/rotation.py). Pure functions of bytes: no settings, no database.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import re
import threading
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

PREFIX = "engram-enc:v1:"
NONCE_BYTES = 12
KEY_BYTES = 32
# Key ids are short and printable: they are stored in every value and named in errors and metrics.
KEY_ID = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


class KeyringError(ValueError):
    """ENGRAM_ENCRYPTION_KEYS is malformed (raised at start-up, naming the problem, never a key)."""


# A derived-work item whose stored text does not open is failed with this error (not retried).
UNREADABLE = "DecryptError: the stored content does not open (altered, or its key is not listed)"


class DecryptError(Exception):
    """A stored value cannot be opened: its key is not listed, or it was altered or moved."""


class _Nonces:
    """Random 96-bit nonces, drawn from os.urandom a block at a time: one system call per value
    cost more than the encryption itself. A block is never shared: a lock hands out each nonce once
    (threads), and a forked child starts with no block (it would repeat its parent's nonces)."""

    BLOCK = NONCE_BYTES * 256

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._block = b""
        self._at = 0

    def take(self) -> bytes:
        with self._lock:
            if self._at + NONCE_BYTES > len(self._block):
                self._block, self._at = os.urandom(self.BLOCK), 0
            nonce = self._block[self._at : self._at + NONCE_BYTES]
            self._at += NONCE_BYTES
            return nonce

    def forget(self) -> None:
        self._lock = threading.Lock()
        self._block, self._at = b"", 0


_nonces = _Nonces()
os.register_at_fork(after_in_child=_nonces.forget)


def new_key() -> str:
    """A fresh 256-bit key in the form ENGRAM_ENCRYPTION_KEYS lists it (without its id)."""
    return base64.urlsafe_b64encode(os.urandom(KEY_BYTES)).decode()


def is_sealed(value: str) -> bool:
    return value.startswith(PREFIX)


def key_id_of(value: str) -> str | None:
    """The key id a stored value was sealed with; None for plaintext."""
    if not value.startswith(PREFIX):
        return None
    kid, sep, _ = value[len(PREFIX) :].partition(":")
    return kid if sep else None


@dataclass(frozen=True)
class _Key:
    kid: str
    aead: AESGCM
    # A separate key for the blind index (HMAC): one secret is never used for two purposes.
    mac_key: bytes


class Keyring:
    """The keys of ENGRAM_ENCRYPTION_KEYS, `id:base64key[,id:base64key...]`, the first the primary.

    `keep_keywords` (ENGRAM_ENCRYPTION_KEYWORD_INDEX=keep) travels with the keys because it decides,
    wherever a text is sealed, whether its words also go into the keyword index (fields.keyword_text).
    """

    def __init__(self, spec: str, *, keep_keywords: bool = False) -> None:
        self.keep_keywords = keep_keywords
        keys: dict[str, _Key] = {}
        for n, part in enumerate(p.strip() for p in spec.split(",")):
            if not part:
                continue
            kid, sep, material = part.partition(":")
            if not sep or not KEY_ID.match(kid):
                raise KeyringError(
                    f"ENGRAM_ENCRYPTION_KEYS: entry {n + 1} is not `id:key` with an id of letters, "
                    "digits, _ or - (at most 32)"
                )
            try:
                text = material.strip().replace("-", "+").replace("_", "/")  # URL-safe or standard
                raw = base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
            except (binascii.Error, ValueError):
                raise KeyringError(f"ENGRAM_ENCRYPTION_KEYS: key {kid} is not base64") from None
            if len(raw) != KEY_BYTES:
                raise KeyringError(
                    f"ENGRAM_ENCRYPTION_KEYS: key {kid} has {len(raw)} bytes, not {KEY_BYTES} "
                    "(make one with `engram encryption new-key`)"
                )
            if kid in keys:
                raise KeyringError(f"ENGRAM_ENCRYPTION_KEYS: key id {kid} is listed twice")
            mac_key = hmac.new(raw, b"engram blind index v1", hashlib.sha256).digest()
            keys[kid] = _Key(kid=kid, aead=AESGCM(raw), mac_key=mac_key)
        if not keys:
            raise KeyringError("ENGRAM_ENCRYPTION_KEYS is set but lists no key")
        self._keys = keys
        self.primary = next(iter(keys))

    @property
    def key_ids(self) -> list[str]:
        return list(self._keys)

    def seal(self, plaintext: str, aad: bytes) -> str:
        key = self._keys[self.primary]
        nonce = _nonces.take()
        sealed = key.aead.encrypt(nonce, plaintext.encode(), aad)
        return f"{PREFIX}{key.kid}:{binascii.b2a_base64(nonce + sealed, newline=False).decode()}"

    def open(self, value: str, aad: bytes) -> str:
        kid, sep, body = value[len(PREFIX) :].partition(":")
        key = self._keys.get(kid)
        if not sep or key is None:
            raise DecryptError(
                f"value sealed with key id {kid!r}, which ENGRAM_ENCRYPTION_KEYS does not list"
            )
        try:
            raw = binascii.a2b_base64(body, strict_mode=True)
            return key.aead.decrypt(raw[:NONCE_BYTES], raw[NONCE_BYTES:], aad).decode()
        except (InvalidTag, binascii.Error, ValueError):
            raise DecryptError(
                f"value sealed with key id {kid} does not open: altered, moved from another row, "
                "or a wrong key"
            ) from None

    def blind_index(self, kid: str, data: bytes) -> str:
        """A keyed hash of `data` under key `kid` (equal inputs, equal outputs: what a filter matches)."""
        digest = hmac.new(self._keys[kid].mac_key, data, hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest[:16]).decode().rstrip("=")
