"""The API's application and its life beside the controller: the address it listens on, and
starting and stopping it inside `batchline serve`'s event loop."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import os
from typing import TYPE_CHECKING

from aiohttp import web

from core.api.auth import LEDGER, bearer_auth
from core.api.comfyui_send import add_comfyui_route, comfyui_cors
from core.api.config import COMMANDS, CONFIG
from core.api.connections import HEADER_TIMEOUT_S, CappedSite
from core.api.errors import json_errors
from core.api.events import STOPPING, STREAMS, StreamCount
from core.api.host_check import host_check
from core.api.quiet_log import quiet_accept_errors, quiet_logger
from core.api.reads import API_THREADS, SLOTS
from core.api.routes import add_routes
from core.controller.commands import LedgerCommands
from core.errors import InputError
from core.presets import MAX_FILE_BYTES
from core.whole_numbers import parse_whole

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from core.api.config import ApiConfig
    from core.ledger import Ledger

SHUTDOWN_S = 2.0


def parse_listen(text: str, allow_remote: bool = False) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6) as a host and a port.

    Raises:
        InputError: not of that form, or not a loopback address without ``allow_remote``.
    """
    host, colon, port_text = text.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    port = parse_whole(port_text, 0, 65535)
    if not colon or not host or port is None:
        raise InputError(f"--listen {text!r} is not HOST:PORT")
    if not allow_remote and not _loopback(host):
        raise InputError(
            f"--listen {host} is not a loopback address: anyone who can reach it could try "
            "tokens; add --allow-remote to listen there anyway"
        )
    return host, port


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def make_app(ledger: Ledger, config: ApiConfig) -> web.Application:
    app = web.Application(
        middlewares=[host_check, comfyui_cors, json_errors, bearer_auth],
        client_max_size=MAX_FILE_BYTES,
    )
    app[LEDGER] = ledger
    app[CONFIG] = config
    app[COMMANDS] = LedgerCommands(ledger, servers=config.servers, limits=config.limits)
    app[STOPPING] = asyncio.Event()
    app[SLOTS] = asyncio.Semaphore(API_THREADS)
    app[STREAMS] = StreamCount(config.caps)
    add_routes(app)
    add_comfyui_route(app)

    async def stop_streams(app: web.Application) -> None:
        app[STOPPING].set()

    app.on_shutdown.append(stop_streams)
    return app


@contextlib.asynccontextmanager
async def serve_api(ledger: Ledger, config: ApiConfig) -> AsyncIterator[str]:
    """Serve the API on this event loop while inside; yields its address (``http://HOST:PORT``,
    the port chosen by the system when 0 was asked). A request's line and headers must arrive
    within ``HEADER_TIMEOUT_S`` (aiohttp's keep-alive timer), and what clients can make it log
    is logged once in a while (``core.api.quiet_log``).

    Raises:
        InputError: the address cannot be listened on (taken, not this machine's).
    """
    runner = web.AppRunner(
        make_app(ledger, config),
        shutdown_timeout=SHUTDOWN_S,
        access_log=None,
        keepalive_timeout=HEADER_TIMEOUT_S,
        logger=quiet_logger(),
    )
    await runner.setup()
    try:
        site = CappedSite(runner, config.host, config.port, config.caps)
        try:
            await site.start()
        except OSError as exc:
            where = f"{config.host}:{config.port}"
            reason = os.strerror(exc.errno) if exc.errno else str(exc)
            raise InputError(f"the API cannot listen on {where} ({reason})") from None
        with quiet_accept_errors(asyncio.get_running_loop()):
            yield _address(runner, config.host)
    finally:
        await runner.cleanup()


def _address(runner: web.AppRunner, host: str) -> str:
    port = next(iter(runner.addresses))[1]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"
