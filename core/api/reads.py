"""The API's ledger work off the event loop: `batchline serve` shares its loop with the
controller, so every read (and command) of a request runs on a worker thread with a ledger
connection of its own (``LedgerCommands.in_worker``), at most ``API_THREADS`` at once, so that
requests never take every worker thread either."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from aiohttp import web

from core.api.config import COMMANDS

if TYPE_CHECKING:
    import asyncio
    from collections.abc import Callable

API_THREADS = 3
_T = TypeVar("_T")
SLOTS: web.AppKey[asyncio.Semaphore] = web.AppKey("ledger_slots")


async def off_the_loop(request: web.Request, work: Callable[[], _T]) -> _T:
    """``work()`` (ledger reads or a command) on a worker thread, when one of the API's is
    free."""
    async with request.app[SLOTS]:
        return await request.app[COMMANDS].in_worker(work)
