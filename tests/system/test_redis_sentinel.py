"""ENGRAM_REDIS_URL=redis+sentinel://...: the window cache follows the primary Sentinel names,
also across a failover, with real redis-server processes (a primary, a replica, a sentinel)."""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from asgi_lifespan import LifespanManager
from redis import Redis

from app.db.embedded import EmbeddedPostgres
from app.main import create_app
from app.redis_client import make_redis, parse_sentinel_url
from tests.support.app import STARTUP, client_for, make_settings
from tests.support.db import create_database
from tests.support.procs import free_port

SERVICE = "engram-primary"


def test_sentinel_urls_are_parsed() -> None:
    u = parse_sentinel_url("redis+sentinel://:s%40cret@10.0.0.1:26380,[::1],sentinel-c/cache/3")
    assert u.sentinels == [("10.0.0.1", 26380), ("::1", 26379), ("sentinel-c", 26379)]
    assert (u.service, u.db, u.username, u.password) == ("cache", 3, None, "s@cret")
    assert parse_sentinel_url("redis+sentinel://h/svc").db == 0
    for bad in ("redis+sentinel://h:1", "redis+sentinel://h/a/1/x", "redis+sentinel://h:x/svc"):
        with pytest.raises(ValueError):
            parse_sentinel_url(bad)


class RedisSet:
    """A primary, its replica and one sentinel watching them; all stopped at the end."""

    def __init__(self, tmp: Path) -> None:
        ports: set[int] = set()
        while len(ports) < 3:
            ports.add(free_port())
        self.primary, self.replica, self.sentinel = sorted(ports)
        self.procs: list[subprocess.Popen[bytes]] = []
        tmp.mkdir(parents=True, exist_ok=True)
        self.tmp = tmp

    def start(self) -> None:
        tmp = self.tmp
        # A replica writes what it receives to an RDB file in its --dir: keep that in tmp.
        base = ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", str(tmp)]
        self._start(["redis-server", "--port", str(self.primary), *base])
        self._start(
            [
                "redis-server",
                "--port",
                str(self.replica),
                *base,
                "--replicaof",
                "127.0.0.1",
                str(self.primary),
            ]
        )
        conf = tmp / "sentinel.conf"  # a sentinel rewrites its own config file
        conf.write_text(
            f"port {self.sentinel}\nbind 127.0.0.1\ndir {tmp}\n"
            f"sentinel monitor {SERVICE} 127.0.0.1 {self.primary} 1\n"
            f"sentinel down-after-milliseconds {SERVICE} 1000\n"
            f"sentinel failover-timeout {SERVICE} 5000\n"
            # Known from the start: otherwise found on the primary's INFO, polled every 10 s.
            f"sentinel known-replica {SERVICE} 127.0.0.1 {self.replica}\n"
        )
        self._start(["redis-server", str(conf), "--sentinel"])
        self.url = f"redis+sentinel://127.0.0.1:{self.sentinel}/{SERVICE}/0"
        self._wait(lambda: self.client(self.replica).info("replication")["master_link_status"] == "up")
        self._wait(lambda: self.current_primary() == self.primary)

    def _start(self, args: list[str]) -> None:
        self.procs.append(subprocess.Popen(args, stdout=subprocess.DEVNULL))

    @staticmethod
    def _wait(ready: object, within: float = 20) -> None:
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            try:
                if ready():  # type: ignore[operator]
                    return
            except Exception:  # not up yet
                pass
            time.sleep(0.1)
        raise AssertionError("redis set-up did not come up")

    def client(self, port: int) -> Redis:
        return Redis(host="127.0.0.1", port=port, socket_timeout=2)

    def current_primary(self) -> int:
        _, port = self.client(self.sentinel).execute_command("SENTINEL", "get-master-addr-by-name", SERVICE)
        return int(port)

    def knows_replica(self) -> bool:
        """Sentinel has found the replica (from the primary's INFO, polled every 10 s) and sees it up:
        before that, a failover is refused with NOGOODSLAVE."""
        for fields in self.client(self.sentinel).execute_command("SENTINEL", "REPLICAS", SERVICE):
            if int(fields[b"port"]) == self.replica and fields[b"flags"] == b"slave":
                return bool(fields[b"master-link-status"] == b"ok")
        return False

    def failover(self) -> None:
        self._wait(self.knows_replica, within=30)
        self.client(self.sentinel).execute_command("SENTINEL", "FAILOVER", SERVICE)
        self._wait(lambda: self.current_primary() == self.replica)
        self._wait(lambda: self.client(self.replica).info("replication")["role"] == "master")

    def stop(self) -> None:
        for p in self.procs:
            p.kill()
            p.wait()


@pytest.fixture
def redis_set(tmp_path: Path) -> Iterator[RedisSet]:
    # A port picked free can be taken before redis-server binds it (CI once saw the replica never
    # link up): start afresh on new ports, a few times, rather than fail the test on that.
    for attempt in range(3):
        rs = RedisSet(tmp_path / f"try-{attempt}")
        try:
            rs.start()
        except AssertionError:
            rs.stop()
            if attempt == 2:
                raise
            continue
        try:
            yield rs
        finally:
            rs.stop()
        return


@pytest.fixture
async def own_db(pg: EmbeddedPostgres) -> str:
    return await create_database(pg)


@pytest.fixture
async def api(own_db: str, redis_set: RedisSet) -> AsyncIterator[httpx.AsyncClient]:
    # No kept answers (app/cache/answers.py): they answer a read repeated at one version without
    # any Redis call, so reads alone would never find the new primary; this test is about the
    # window cache's own reads and writes following it.
    settings = make_settings(
        own_db, auth="off", run_worker=False, redis_url=redis_set.url, cache_answer_bytes=0
    )
    app = create_app(settings)
    async with (
        LifespanManager(app, startup_timeout=STARTUP, shutdown_timeout=STARTUP) as m,
        client_for(m.app) as c,  # type: ignore[arg-type]
    ):
        yield c


def _windows(r: Redis) -> int:
    return len(list(r.scan_iter(match="engram:w:*", count=1000)))


async def _read_until_cached(api: httpx.AsyncClient, sid: str, on: Redis, within: float = 20) -> None:
    """Memory reads answer (200) throughout; within `within` s the window is cached in `on`."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        r = await api.get(f"/v1/sessions/{sid}/memory")
        assert r.status_code == 200, r.text
        if _windows(on):
            return
        await asyncio.sleep(0.2)
    raise AssertionError("the window never reached this Redis")


async def test_the_cache_follows_the_primary_across_a_failover(
    api: httpx.AsyncClient, redis_set: RedisSet
) -> None:
    client = make_redis(redis_set.url, timeout=1.0)
    assert client is not None
    assert int((await client.info("server"))["tcp_port"]) == redis_set.primary
    await client.aclose()

    assert (await api.get("/readyz")).json()["checks"]["redis"] == "ok"
    assert (await api.post("/v1/sessions", json={"session_id": "s", "user_id": "u"})).status_code == 201
    r = await api.post("/v1/sessions/s/messages", json={"messages": [{"role": "user", "content": "one"}]})
    assert r.status_code == 201
    await _read_until_cached(api, "s", redis_set.client(redis_set.primary))

    redis_set.failover()
    redis_set.client(redis_set.replica).flushall()  # what it copied from the old primary
    r = await api.post("/v1/sessions/s/messages", json={"messages": [{"role": "user", "content": "two"}]})
    assert r.status_code == 201
    # The clients keep using the old primary until Sentinel turns it into a replica (on its next
    # look at it, within about 10 s); its first refused write sends them to the new one.
    await _read_until_cached(api, "s", redis_set.client(redis_set.replica))
    memory = (await api.get("/v1/sessions/s/memory")).json()
    assert [m["content"] for m in memory["messages"]] == ["one", "two"]
    assert (await api.get("/readyz")).json()["checks"]["redis"] == "ok"
