"""Running jobs' preview frames, read and decoded in a worker thread; the GUI thread only
receives the pictures (the contact sheet's running cells and the job details show them)."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtGui import QImage

from core.controller.previews import preview_file
from desktop.common.off_thread import OffThread

if TYPE_CHECKING:
    from pathlib import Path


class PreviewReader(QObject):
    """Reads the newest preview the controller kept for a running job, off the GUI thread.

    A file is read whole and decoded from its bytes (a picture opened by name may come from a
    cache, older); a request for a count already asked is dropped, and a read overtaken by a
    newer request for the same job is skipped.

    Signals:
        ready(str, int, QImage): the job, the preview count asked for, its picture.
    """

    ready = Signal(str, int, QImage)

    def __init__(self, ledger_folder: Path, parent: Any = None) -> None:
        super().__init__(parent)
        self._folder = ledger_folder
        self._pool = OffThread("previews", 1, parent=self)
        self._pool.done.connect(self._read_done)
        self._asked: dict[str, int] = {}

    def request(self, job_id: str, count: int) -> None:
        """Read ``job_id``'s newest preview, the ``count``-th the controller wrote."""
        if self._asked.get(job_id) == count:
            return
        self._asked[job_id] = count
        self._pool.submit((job_id, count), self._read, job_id, count)

    def forget(self, job_id: str) -> None:
        """The job stopped running: a read still under way is not delivered."""
        self._asked.pop(job_id, None)

    def _read(self, job_id: str, count: int) -> QImage | None:
        """In the worker thread: None when overtaken before it started."""
        if self._asked.get(job_id) != count:
            return None
        path = preview_file(self._folder, job_id)
        image = QImage()
        with contextlib.suppress(OSError):
            image.loadFromData(path.read_bytes() if path is not None else b"")
        return image

    @Slot(object, object)
    def _read_done(self, asked: tuple[str, int], image: QImage | None) -> None:
        job_id, count = asked
        if image is not None and not image.isNull() and self._asked.get(job_id) == count:
            self.ready.emit(job_id, count, image)  # else: the next brings one
