"""What the API is served with: where it listens, its backpressure limits, how many servers
work the queue and how many connections and streams it holds; the app keys its routes read it,
and the command object made of it, under."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from aiohttp import web

from core.api.connections import ConnectionCaps
from core.controller.backpressure import Limits

if TYPE_CHECKING:
    from core.controller.commands import LedgerCommands

DEFAULT_HOST, DEFAULT_PORT = "127.0.0.1", 8190


@dataclass(frozen=True)
class ApiConfig:
    """Where the API listens, its backpressure limits, how many servers work the queue (for
    the wait estimate), and its caps on connections and event streams."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    limits: Limits = field(default_factory=Limits)
    servers: int = 1
    caps: ConnectionCaps = field(default_factory=ConnectionCaps)


CONFIG: web.AppKey[ApiConfig] = web.AppKey("config")
# The commands the routes give (queue, cancel, retry): the same object the CLI and the window use.
COMMANDS: web.AppKey[LedgerCommands] = web.AppKey("commands")
