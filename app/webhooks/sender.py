"""Sends one signed delivery over HTTP (httpx) and says how it went; never raises for the
receiver's trouble (down, slow, an error status): that is an `Outcome` the step records."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

import httpx

from app.webhooks.addresses import Refused, public_addresses

ERROR_BYTES = 300  # of a refusing receiver's body, kept with the attempt
USER_AGENT = "Engram-Webhooks/1"


@dataclass(frozen=True)
class Outcome:
    status: int | None  # the receiver's status code; None when there was no answer
    error: str | None  # why it failed (None: delivered)
    seconds: float

    @property
    def ok(self) -> bool:
        return self.error is None


class Sender:
    def __init__(self, *, timeout: float, block_private: bool) -> None:
        self.timeout = timeout
        self.block_private = block_private
        # Redirects are not followed: a receiver must answer where it was registered (a redirect
        # could lead to an address the check below never saw).
        self.client = httpx.AsyncClient(
            timeout=httpx.Timeout(timeout),
            follow_redirects=False,
            headers={"user-agent": USER_AGENT},
            limits=httpx.Limits(max_connections=100, max_keepalive_connections=20),
        )

    async def aclose(self) -> None:
        await self.client.aclose()

    async def send(self, *, url: str, headers: dict[str, str], body: str) -> Outcome:
        started = time.perf_counter()
        status: int | None = None
        error: str | None = None
        try:
            # httpx's timeout bounds each read; this one bounds the whole try (a receiver that
            # drips its answer byte by byte).
            async with asyncio.timeout(self.timeout):
                request = await self._request(url, headers, body)
                response = await self.client.send(request, stream=True)
                try:
                    status = response.status_code
                    if not 200 <= status < 300:
                        snippet = await _head(response)
                        error = f"HTTP {status}" + (f": {snippet}" if snippet else "")
                finally:
                    await response.aclose()
        except Refused as exc:
            error = f"refused: {exc}"
        except TimeoutError:
            error = f"no answer within {self.timeout:g} s"
        except httpx.HTTPError as exc:
            error = f"{type(exc).__name__}: {exc}"[:500] or type(exc).__name__
        return Outcome(status=status, error=error, seconds=time.perf_counter() - started)

    async def _request(self, url: str, headers: dict[str, str], body: str) -> httpx.Request:
        target = httpx.URL(url)
        extensions: dict[str, str] = {}
        if self.block_private:
            # Resolve once, check, and connect to that very address (a second lookup by the client
            # could answer differently: DNS rebinding). TLS still checks the certificate against
            # the name, sent as SNI.
            address = (await public_addresses(target.host, target.port or _default_port(target)))[0]
            headers = {**headers, "host": target.netloc.decode()}
            if target.scheme == "https":
                extensions["sni_hostname"] = target.host
            target = target.copy_with(host=address)
        return self.client.build_request(
            "POST", target, content=body.encode(), headers=headers, extensions=extensions
        )


def _default_port(url: httpx.URL) -> int:
    return 443 if url.scheme == "https" else 80


async def _head(response: httpx.Response) -> str:
    """The first bytes of the body, for the attempt's error (a receiver's body may be huge)."""
    chunk = b""
    async for part in response.aiter_raw():
        chunk += part
        if len(chunk) >= ERROR_BYTES:
            break
    return chunk[:ERROR_BYTES].decode("utf-8", "replace").strip()
