"""Fair claims of due rows from a queue table: a batch shared across tenants, then users, in
rotation (app.jobs.fair), so one tenant's backlog does not hold up another's new work.

Used by the message embeddings (`messages`, app/indexing/tasks.py) and their sentences
(`message_sentences`, app/indexing/sentence_tasks.py); each queue is a table with `tenant_id`,
`user_id`, a due condition and a column ordering its due rows oldest first, and a partial index
on (tenant_id, user_id, <order>) of its due rows that the rotation probes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Row, text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.jobs.fair import TENANTS_PER_CLAIM, USERS_PER_TENANT, Rotation


def _rotation(probe: str, name: str, col: str, scope: str, after: str, limit: str) -> str:
    """CTEs ending in `{name}` (n, v, lap): up to `limit` distinct values of `col` among the due
    rows matching `scope` (`probe` selects them, as `m`), in rotation order: ascending after
    `after`, then from the start up to it. Each step is one probe of the queue's fair index (a
    loose index scan), so the cost is the number of values returned, whatever the backlog."""
    probe = f"SELECT m.{col} {probe} AND {scope}"
    return (
        f"{name}_0 (n, v) AS ("
        f"SELECT 1, ({probe} AND m.{col} > {after} ORDER BY m.{col} LIMIT 1) "
        f"UNION ALL SELECT r.n + 1, ({probe} AND m.{col} > r.v ORDER BY m.{col} LIMIT 1) "
        f"FROM {name}_0 r WHERE r.v IS NOT NULL AND r.n < {limit}), "
        f"{name}_1 (n, v) AS ("
        f"SELECT 1, ({probe} ORDER BY m.{col} LIMIT 1) "
        f"UNION ALL SELECT r.n + 1, ({probe} AND m.{col} > r.v ORDER BY m.{col} LIMIT 1) "
        f"FROM {name}_1 r WHERE r.v IS NOT NULL AND r.v < {after} AND r.n < {limit}), "
        f"{name} (n, v, lap) AS ("
        f"SELECT n, v, 0 FROM {name}_0 WHERE v IS NOT NULL "
        f"UNION ALL SELECT n, v, 1 FROM {name}_1 WHERE v IS NOT NULL AND v <= {after} "
        f"ORDER BY 3, 1 LIMIT {limit})"
    )


class FairQueue:
    """The three statements of a fair claim from `table`: who has due work (`due`, a condition
    on the table's columns, for rows aliased `m` or not: `{m}` stands for the prefix), each
    owner's share oldest first by `order`, then the oldest of the rest. `cols` are the columns a
    claim returns. `due_sql` is the condition on the unaliased table (for counts and lags)."""

    def __init__(self, *, table: str, due: str, order: str, cols: str) -> None:
        self.due_sql = due.format(m="")
        probe = f"FROM {table} m WHERE {due.format(m='m.')}"
        # Who has due work, in rotation order: tenants after the last one served, and in each,
        # users after the last one served there.
        self.owners = text(
            "WITH RECURSIVE "
            + _rotation(probe, "tenants", "tenant_id", "true", ":after_tenant", ":tenants")
            + " SELECT t.v AS tenant_id, u.v AS user_id FROM tenants t "
            "LEFT JOIN unnest(CAST(:cursor_tenants AS text[]), CAST(:cursor_users AS text[])) AS c(t, u) "
            "ON c.t = t.v "
            "CROSS JOIN LATERAL (WITH RECURSIVE "
            + _rotation(probe, "users", "user_id", "m.tenant_id = t.v", "coalesce(c.u, '')", ":users")
            + " SELECT n, v, lap FROM users) u ORDER BY t.lap, t.n, u.lap, u.n"
        )
        self.shares = text(
            "SELECT m.* FROM unnest(CAST(:tenant_ids AS text[]), CAST(:user_ids AS text[]), "
            "CAST(:shares AS int[])) AS o(t, u, q) "
            f"CROSS JOIN LATERAL (SELECT {cols} FROM {table} "
            f"WHERE tenant_id = o.t AND user_id = o.u AND {self.due_sql} "
            f"ORDER BY {order} LIMIT o.q FOR UPDATE SKIP LOCKED) m"
        )
        self.rest = text(
            f"SELECT {cols} FROM {table} WHERE {self.due_sql} "
            "AND NOT (message_id = ANY(CAST(:taken AS uuid[]))) "
            f"ORDER BY {order} LIMIT :n FOR UPDATE SKIP LOCKED"
        )

    async def claim(self, conn: AsyncConnection, rotation: Rotation, limit: int) -> list[Row[Any]]:
        """Up to `limit` due rows, locked: the slots shared across the tenants with due work, then
        across each one's users, in rotation; slots a share leaves unused go to the oldest."""
        owners = (
            await conn.execute(
                self.owners,
                {
                    "after_tenant": rotation.tenant,
                    "tenants": min(limit, TENANTS_PER_CLAIM),
                    "users": USERS_PER_TENANT,
                    "cursor_tenants": list(rotation.users),
                    "cursor_users": list(rotation.users.values()),
                },
            )
        ).all()
        if not owners:
            return []
        shares = rotation.shares([(o.tenant_id, o.user_id) for o in owners], limit)
        served: Sequence[tuple[Any, int]] = [(o, q) for o, q in zip(owners, shares, strict=True) if q]
        rows = list(
            (
                await conn.execute(
                    self.shares,
                    {
                        "tenant_ids": [o.tenant_id for o, _ in served],
                        "user_ids": [o.user_id for o, _ in served],
                        "shares": [q for _, q in served],
                    },
                )
            ).all()
        )
        if len(rows) < limit:
            taken = [r.message_id for r in rows]
            rows.extend((await conn.execute(self.rest, {"taken": taken, "n": limit - len(rows)})).all())
        return rows
