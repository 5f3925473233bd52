"""The node catalogues of the servers the controller drives, each fetched once (`/object_info`)
in the background and kept: the composer checks model and file names against them."""

from __future__ import annotations

import asyncio
import logging
import time

from PySide6.QtCore import QObject, Signal

from core.catalogue import Catalogue
from core.comfy.token_store import client_for
from core.errors import BatchlineError

log = logging.getLogger(__name__)

RETRY_S = 30.0  # an unreachable server is asked again at most this often


class ServerCatalogues(QObject):
    """Catalogues by server address.

    Signals:
        ready(): a server's catalogue arrived.
    """

    ready = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._catalogues: dict[str, Catalogue] = {}
        self._failed_at: dict[str, float] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        # Deleted with its window while a fetch is under way: the fetch is given up, never
        # left to signal from a deleted object (a closure, as ``self`` is gone by then).
        tasks = self._tasks
        self.destroyed.connect(lambda *_: [task.cancel() for task in tasks.values()])

    def catalogues(self, addresses: list[str]) -> list[tuple[str, Catalogue]]:
        """Those of `addresses` already fetched."""
        return [(a, self._catalogues[a]) for a in addresses if a in self._catalogues]

    def want(self, addresses: list[str]) -> None:
        """Fetch the catalogues of `addresses` not yet fetched (needs a running event loop:
        without one, as in a test of a bare widget, nothing is fetched)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        now = time.monotonic()
        for address in addresses:
            failed_at = self._failed_at.get(address)
            recent_failure = failed_at is not None and now - failed_at < RETRY_S
            if address in self._catalogues or address in self._tasks or recent_failure:
                continue
            task = asyncio.get_running_loop().create_task(self._fetch(address))
            self._tasks[address] = task

    def stop(self) -> None:
        """Give up the fetches under way (the window closes or hides); a later status asks
        again."""
        for task in self._tasks.values():
            task.cancel()
        self._tasks.clear()

    async def _fetch(self, address: str) -> None:
        this = asyncio.current_task()  # asked now: at the end the loop may be gone (its close)
        try:
            async with client_for(address) as client:
                info = await client.object_info()
        except (BatchlineError, ValueError) as exc:  # unreachable, refused, a bad address
            log.info("no node catalogue from %s: %s", address, exc)
            self._failed_at[address] = time.monotonic()
            return
        except RuntimeError as exc:  # the event loop stopped under the fetch (the app quits)
            if "event loop" not in str(exc):
                raise
            log.debug("the node catalogue of %s given up: %s", address, exc)
            return
        finally:
            if self._tasks.get(address) is this:
                del self._tasks[address]
        self._catalogues[address] = Catalogue.from_object_info(info, source=address)
        self.ready.emit()
