"""Which webhook hosts may be called when ENGRAM_WEBHOOK_BLOCK_PRIVATE is on: only those whose
every address is public, so an endpoint cannot reach the database, the cloud's metadata service
or anything else on the operator's network (server-side request forgery)."""

from __future__ import annotations

import asyncio
import ipaddress
import socket


class Refused(Exception):
    """The host is, or resolves to, an address that is not public."""


def _public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 zone id is no part of the address
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


async def public_addresses(host: str, port: int) -> list[str]:
    """The host's addresses, all public; raises Refused otherwise (or if it does not resolve)."""
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise Refused(f"{host} does not resolve ({exc.strerror or exc})") from None
    addresses = sorted({str(info[4][0]) for info in infos})
    if not addresses:
        raise Refused(f"{host} does not resolve")
    for address in addresses:
        if not _public(address):
            raise Refused(f"{host} is or resolves to a non-public address ({address})")
    return addresses
