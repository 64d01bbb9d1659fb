"""A session's messages as the worker's model steps read them: in order, within a token budget."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.ai.fact_extractor import TurnRef
from app.crypto import fields

_READ = text(
    "SELECT message_id, seq, role, name, content, token_count, created_at FROM messages "
    "WHERE tenant_id = :t AND session_id = :s AND seq > :after AND seq <= :upto ORDER BY seq"
)


async def read_turns(
    conn: AsyncConnection, *, tenant_id: str, session_id: str, after: int, upto: int, budget: int
) -> tuple[list[TurnRef], bool]:
    """Messages after..upto in order, stopping once `budget` tokens are read (at least one
    message is always read). Returns them and whether the budget cut the range short."""
    rows = (await conn.execute(_READ, {"t": tenant_id, "s": session_id, "after": after, "upto": upto})).all()
    turns: list[TurnRef] = []
    used = 0
    for r in rows:
        if turns and used + r.token_count > budget:
            return turns, True
        turns.append(
            TurnRef(
                seq=r.seq,
                role=r.role,
                name=r.name,
                content=fields.open_text(
                    r.content, tenant=tenant_id, table="messages", field="content", row=r.message_id
                ),
                created_at=r.created_at,
                message_id=r.message_id,
            )
        )
        used += r.token_count
    return turns, False
