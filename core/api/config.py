"""What the API is served with: where it listens, its backpressure limits, and how many
servers work the queue; the app key its routes read it under."""

from __future__ import annotations

from dataclasses import dataclass, field

from aiohttp import web

from core.backpressure import Limits

DEFAULT_HOST, DEFAULT_PORT = "127.0.0.1", 8190


@dataclass(frozen=True)
class ApiConfig:
    """Where the API listens, its backpressure limits, and how many servers work the queue
    (for the wait estimate)."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    limits: Limits = field(default_factory=Limits)
    servers: int = 1


CONFIG: web.AppKey[ApiConfig] = web.AppKey("config")
