"""The ledger's controller as seen from another process: the window, while `batchline serve`
does the work in the background.

Its commands are ledger verbs (the controller acts on them from its change feed within
``FEED_POLL_S``); its status is what the controller published in the ledger, read every
``POLL_S``. Whether a controller runs at all comes from the lease, at once, not from an old row.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING

from core.controller.commands import LedgerCommands
from core.controller.published import Published, read_published
from core.controller.status import Connection, ControllerStatus, StatusListener, tell
from core.errors import LedgerError

if TYPE_CHECKING:
    from core.ledger import Ledger

log = logging.getLogger(__name__)
POLL_S = 0.2
NOT_RUNNING = "no controller is running for this ledger"


class ControllerClient(LedgerCommands):
    """Commands and status of a controller in another process, through the ledger alone.

    ``running`` is the controller's published row while one runs (None otherwise); ``status``
    is its latest status, or one that says none runs (``stopped``), with the reason the last
    one gave if it stopped for an error.
    """

    def __init__(self, ledger: Ledger) -> None:
        super().__init__(ledger)
        self.running: Published | None = None
        self.status = ControllerStatus(connection=Connection.offline, stopped=NOT_RUNNING)
        self._starting_since = 0.0  # when one began being started (0: none is)
        self.failed = ""  # the error the last controller stopped for, while none runs
        self._listeners: list[StatusListener] = []
        self._task: asyncio.Task[None] | None = None

    @property
    def starting(self) -> bool:
        """One is being started: until it runs, the status says "connecting", since when."""
        return bool(self._starting_since)

    @starting.setter
    def starting(self, starting: bool) -> None:
        self._starting_since = (self._starting_since or time.time()) if starting else 0.0

    def server_count(self) -> int:
        return max(1, len(self.status.servers))

    async def start(self) -> None:
        """Read the status now, then every ``POLL_S`` until ``stop``."""
        self.refresh()
        self._task = asyncio.create_task(self._follow(), name="controller status")

    async def stop(self) -> None:
        """Stop reading (the controller itself goes on)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def add_status_listener(self, callback: StatusListener) -> None:
        self._listeners.append(callback)

    def refresh(self) -> None:
        """Read what the controller published, and whether it still holds the lease."""
        published = read_published(self.ledger)
        if published is not None and self._alive(published):
            self.running, self.failed = published, ""
            self._emit(published.status)
            return
        self.running = None
        self.failed = published.status.stopped if published else ""
        server = published.status.server if published else self.status.server
        if self.starting:
            since = self._starting_since
            self._emit(
                ControllerStatus(connection=Connection.connecting, server=server, started_at=since)
            )
            return
        reason = f"the controller stopped: {self.failed}" if self.failed else NOT_RUNNING
        self._emit(ControllerStatus(connection=Connection.offline, server=server, stopped=reason))

    def _alive(self, published: Published) -> bool:
        if published.stopped or published.silent(time.time()):
            return False
        return self.ledger.lease.taken()  # else the row says running, its process is gone

    async def _follow(self) -> None:
        while True:
            await asyncio.sleep(POLL_S)
            try:
                self.refresh()
            except LedgerError as exc:  # busy or unreadable for a moment: the next read may do
                log.warning("reading the controller's status: %s", exc)

    def _emit(self, status: ControllerStatus) -> None:
        if status == self.status:
            return
        self.status = status
        tell(self._listeners, status)
