"""The keyring at start-up: configured from ENGRAM_ENCRYPTION_KEYS and checked against the database.

Every key id that has sealed data here has a row in `encryption_keys` with a value it sealed (a
canary). A start fails, with a message that says what to do, when a listed key does not open its
canary (a wrong key under that id), when a key id that still seals rows is not listed, or when
encryption is off but the database holds encrypted rows: never silent garbage or errors later.
"""

from __future__ import annotations

import structlog
from pydantic import SecretStr
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.crypto import fields
from app.crypto.envelope import DecryptError, Keyring
from app.db.outage import is_outage

_log = structlog.get_logger("engram.crypto")
CANARY = "engram encryption canary"


class EncryptionKeyError(RuntimeError):
    """ENGRAM_ENCRYPTION_KEYS does not fit the data in the database (the start stops)."""


def _canary_aad(kid: str) -> bytes:
    return fields.aad("", "encryption_keys", "canary", kid)


async def check_keys(conn: AsyncConnection, ring: Keyring | None) -> None:
    """Raise EncryptionKeyError unless `ring` opens every live key id of the database; record the
    primary's canary the first time it is used."""
    rows = (await conn.execute(text("SELECT key_id, canary, retired_at FROM encryption_keys"))).all()
    live = sorted(r.key_id for r in rows if r.retired_at is None)
    if ring is None:
        if live:
            raise EncryptionKeyError(
                f"this database holds data encrypted under key id(s) {', '.join(live)}, but "
                "ENGRAM_ENCRYPTION_KEYS is unset: set it (with those ids) to start"
            )
        return
    known = {r.key_id: r for r in rows}
    for kid, row in known.items():
        if kid in ring.key_ids:
            try:
                ring.open(row.canary, _canary_aad(kid))
            except DecryptError:
                raise EncryptionKeyError(
                    f"ENGRAM_ENCRYPTION_KEYS: key {kid} is not the key that encrypted this database's "
                    "data under that id (a wrong or mistyped key)"
                ) from None
        elif row.retired_at is None:
            raise EncryptionKeyError(
                f"ENGRAM_ENCRYPTION_KEYS does not list key id {kid}, which still encrypts data here: "
                "keep it listed (after the new primary) until `engram encryption status` says it is retired"
            )
    primary = ring.primary
    if primary not in known:
        await conn.execute(
            text("INSERT INTO encryption_keys (key_id, canary) VALUES (:k, :c) ON CONFLICT DO NOTHING"),
            {"k": primary, "c": ring.seal(CANARY, _canary_aad(primary))},
        )
        # Another process may have recorded the id first, with other key material.
        stored = (
            await conn.execute(text("SELECT canary FROM encryption_keys WHERE key_id = :k"), {"k": primary})
        ).scalar_one()
        try:
            ring.open(stored, _canary_aad(primary))
        except DecryptError:
            raise EncryptionKeyError(
                f"ENGRAM_ENCRYPTION_KEYS: key {primary} differs from the key another process "
                "recorded under that id"
            ) from None
    elif known[primary].retired_at is not None:  # a retired key made primary again
        await conn.execute(
            text("UPDATE encryption_keys SET retired_at = NULL WHERE key_id = :k"), {"k": primary}
        )


async def start_encryption(
    keys: SecretStr | None, engine: AsyncEngine, *, keep_keywords: bool = False
) -> Keyring | None:
    """Use the keyring of `keys` (ENGRAM_ENCRYPTION_KEYS) in this context, checked against the
    database; `keep_keywords` is ENGRAM_ENCRYPTION_KEYWORD_INDEX=keep."""
    ring = fields.configure(
        keys.get_secret_value() if keys is not None else None, keep_keywords=keep_keywords
    )
    try:
        async with engine.begin() as conn:
            await check_keys(conn, ring)
    except EncryptionKeyError:
        raise
    except Exception as exc:
        if not is_outage(exc):
            raise
        # As for the embedder's dimension (app/runtime.py): the API may start before its database.
        _log.warning("database unavailable at start; encryption keys not checked", error=str(exc))
    if ring is not None:
        _log.info(
            "encryption at rest: on",
            primary=ring.primary,
            keys=ring.key_ids,
            keyword_index="keep" if keep_keywords else "drop",
        )
    return ring
