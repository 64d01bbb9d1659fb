"""The write-through of an append: its messages join the session's cache entry after the commit,
so the agent's next memory read (usually right after) is a hit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from app.cache.document import counted, message_doc
from app.cache.window import Version, WindowCache

if TYPE_CHECKING:
    from app.ai.tokenizer import Tokenizer


async def write_through(
    cache: WindowCache,
    *,
    tenant_id: str,
    session_id: str,
    base: Version,
    new: Version,
    messages: Sequence[Any],
    tokenizer: Tokenizer,
) -> None:
    """After an append commits: add its messages (MessageOut) to the session's entry if it is at
    `base`; any other entry is left for the next read to rebuild."""
    if not cache.healthy:
        return
    docs = counted([message_doc(m) for m in messages], tokenizer.count)
    await cache.extend(tenant_id, session_id, base=base, new=new, messages=docs)
