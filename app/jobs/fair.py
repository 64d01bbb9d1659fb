"""Fair shares of a claim: split evenly across tenants, then across each tenant's users, in
rotation, so one tenant's (or one user's) backlog delays another's new work by at most a batch
or two instead of its whole length.

Pure: the queue's SQL finds who has due work (in rotation order, after the cursors) and claims
each owner's share; `Rotation` decides the shares and remembers where to start next time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

TENANTS_PER_CLAIM = 32  # tenants served by one claim at most (the rest are next, in rotation)
USERS_PER_TENANT = 16  # users of one tenant served by one claim at most
CURSORS = 1000  # tenants whose last served user a rotation of single claims remembers


@dataclass
class Rotation:
    """Where the next claim starts: after the last tenant served, and in each tenant after the
    last user served. Per worker, in memory: several workers each rotate on their own."""

    tenant: str = ""
    users: dict[str, str] = field(default_factory=dict)

    def after_users(self, tenants: Sequence[str]) -> list[str]:
        return [self.users.get(t, "") for t in tenants]

    def served(self, tenant: str, user: str) -> None:
        """A single claim (a session job) went to `user` of `tenant`: both cursors move past it.
        The cursors of tenants served longest ago are forgotten past CURSORS (bounded memory;
        a forgotten tenant starts again from its first user)."""
        self.tenant = tenant
        self.users.pop(tenant, None)
        self.users[tenant] = user
        while len(self.users) > CURSORS:
            del self.users[next(iter(self.users))]

    def shares(self, owners: Sequence[tuple[str, str]], slots: int) -> list[int]:
        """Slots for each (tenant, user) of `owners` (rotation order, tenants grouped), summing to
        at most `slots`; moves the cursors past the owners that got some."""
        tenants: list[str] = []
        users: dict[str, list[int]] = {}
        for i, (t, _) in enumerate(owners):
            if t not in users:
                tenants.append(t)
                users[t] = []
            users[t].append(i)
        out = [0] * len(owners)
        for k, t in enumerate(tenants):
            share = slots // len(tenants) + (1 if k < slots % len(tenants) else 0)
            mine = users[t]
            for j, i in enumerate(mine):
                out[i] = share // len(mine) + (1 if j < share % len(mine) else 0)
            served = [i for i in mine if out[i]]
            if served:
                self.users[t] = owners[served[-1]][1]
                self.tenant = t
        # Forget tenants that had no due work this time (bounded memory).
        self.users = {t: u for t, u in self.users.items() if t in users}
        return out
