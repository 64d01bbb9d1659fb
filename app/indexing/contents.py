"""The plain text of claimed message rows, for a step that embeds them."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Row

from app.crypto import fields
from app.crypto.envelope import DecryptError


def readable(rows: Sequence[Row[Any]]) -> tuple[list[tuple[Row[Any], str]], list[uuid.UUID]]:
    """Each row (`message_id`, `tenant_id`, `content`) with its content opened (app/crypto: as
    stored when encryption is off), and the ids of the rows whose content cannot be opened: the
    caller fails those at once, so they hold up neither the batch nor every batch after."""
    out: list[tuple[Row[Any], str]] = []
    bad: list[uuid.UUID] = []
    for r in rows:
        try:
            content = fields.open_text(
                r.content, tenant=r.tenant_id, table="messages", field="content", row=r.message_id
            )
        except DecryptError:
            bad.append(r.message_id)
            continue
        out.append((r, content))
    return out, bad
