"""The Host check on every route (against DNS rebinding): a page on another site whose name
was made to point at this computer sends its own name as Host, so a request whose Host is not
an address the API listens on is refused (421) before anything else is read.

Listening on loopback, ``127.0.0.1:PORT``, ``localhost:PORT`` and ``[::1]:PORT`` are accepted;
listening elsewhere (``--allow-remote``), any IP literal with the API's port (a name other than
localhost is refused: use the address)."""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING

from aiohttp import web

from core.api.config import CONFIG
from core.api.errors import error_response

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

_LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


def host_allowed(host_header: str, listen_host: str, port: int) -> bool:
    """Whether ``host_header`` (``name[:port]``, ``[v6][:port]``) names the API listening on
    ``listen_host`` at ``port``."""
    text = host_header.strip().lower()
    if text.startswith("["):
        name, _, rest = text[1:].partition("]")
        port_text = rest.removeprefix(":") if rest.startswith(":") else ("" if not rest else "x")
    else:
        name, _, port_text = text.partition(":")
    if (port_text or "80") != str(port):
        return False
    if name in _LOOPBACK_NAMES or _is_loopback_ip(name):
        return True
    if _is_loopback_ip(listen_host) or listen_host == "localhost":
        return False
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    wildcard = listen_host in ("0.0.0.0", "::", "")
    return wildcard or address == ipaddress.ip_address(listen_host)


def _is_loopback_ip(name: str) -> bool:
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _local_port(request: web.Request) -> int:
    sockname = request.transport.get_extra_info("sockname") if request.transport else None
    if sockname:
        return int(sockname[1])
    return request.app[CONFIG].port  # pragma: no cover - a request always has its socket


@web.middleware
async def host_check(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    host = request.headers.get("Host", "")
    if not host_allowed(host, request.app[CONFIG].host, _local_port(request)):
        return error_response(
            421,
            f"Host {host!r} is not the address this API listens on; ask it by its address "
            "(e.g. 127.0.0.1 with its port)",
        )
    return await handler(request)
