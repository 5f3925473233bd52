"""Background asyncio tasks that are kept alive and whose failures are shown, never lost."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

if TYPE_CHECKING:
    from collections.abc import Coroutine

log = logging.getLogger(__name__)


class BackgroundTasks(QObject):
    """Starts coroutines as tasks, keeps a strong reference, reports exceptions.

    The event loop only keeps weak references to tasks, so a task nobody holds can be
    garbage-collected mid-flight; and an exception in a task nobody awaits vanishes.

    Signals:
        failed(str, str): a task named by the first argument raised; the second is the message.
    """

    failed = Signal(str, str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._tasks: set[asyncio.Task[Any]] = set()

    def start(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        task = asyncio.get_event_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._finished)
        return task

    @property
    def running(self) -> int:
        return len(self._tasks)

    async def cancel_all(self) -> None:
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            log.error("task %s failed", task.get_name(), exc_info=exc)
            self.failed.emit(task.get_name(), str(exc) or type(exc).__name__)
