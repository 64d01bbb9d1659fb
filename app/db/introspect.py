"""Facts about the installed schema that settings must agree with."""

from __future__ import annotations

import re

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine


async def embedding_dimension(engine: AsyncEngine) -> int | None:
    """The `vector(D)` dimension of messages.embedding, or None if the schema is not there yet."""
    async with engine.connect() as conn:
        kind = (
            await conn.execute(
                text(
                    "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
                    "WHERE attrelid = to_regclass('messages') AND attname = 'embedding'"
                )
            )
        ).scalar()
    match = re.fullmatch(r"vector\((\d+)\)", kind or "")
    return int(match.group(1)) if match else None
