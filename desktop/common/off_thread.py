"""Work run off the GUI thread, its result delivered on the GUI thread as a signal.

The one place the desktop submits to a thread pool: the thumbnails, full pictures, previews,
a big batch's reading and the server check each hand their work here, and read its answer in
a slot, where the GUI's own state (caches, what is still wanted) is safe to touch.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

if TYPE_CHECKING:
    from collections.abc import Callable


class OffThread(QObject):
    """A pool of ``workers`` threads (named ``name``-n) whose results arrive as signals.

    ``submit(key, work, *args)`` runs ``work(*args)`` in a worker; its result, or one of the
    ``expected`` exceptions it raised, comes back with ``key`` (what the caller needs to tell
    whether the answer is still wanted). Any other exception stays in the worker, unreported,
    as a bare executor leaves it.

    Signals:
        done(object, object): the key and the result (on the GUI thread).
        failed(object, object): the key and the expected exception raised.
    """

    done = Signal(object, object)
    failed = Signal(object, object)

    def __init__(
        self,
        name: str,
        workers: int = 1,
        expected: tuple[type[Exception], ...] = (),
        parent: Any = None,
    ) -> None:
        super().__init__(parent)
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name)
        self._expected = expected

    def submit(self, key: object, work: Callable[..., object], *args: object) -> None:
        self._pool.submit(self._run, key, work, args)

    def _run(self, key: object, work: Callable[..., object], args: tuple[object, ...]) -> None:
        """In the worker thread."""
        try:
            result = work(*args)
        except self._expected as exc:
            self.failed.emit(key, exc)
            return
        self.done.emit(key, result)

    def shutdown(self) -> None:
        """Start nothing more (what waits is dropped) and wait for what runs."""
        self._pool.shutdown(wait=True, cancel_futures=True)
