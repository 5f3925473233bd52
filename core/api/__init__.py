"""The local HTTP API (aiohttp, JSON, under ``/v1``): scripts and tools queue, follow, cancel and
retry their own jobs through the ledger's verbs, as the window and the command line do, and are
refused with 429 and a wait estimate when the queue is full. `batchline serve` runs it."""

from core.api.app import make_app, parse_listen, serve_api
from core.api.config import ApiConfig

__all__ = ["ApiConfig", "make_app", "parse_listen", "serve_api"]
