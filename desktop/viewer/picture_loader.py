"""Pictures read at full resolution in a worker thread; the GUI thread only receives them."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtGui import QImage, QImageReader

from desktop.common.off_thread import OffThread

CACHED = 4  # the pictures kept decoded: the one shown and its neighbours


class PictureLoader(QObject):
    """Reads pictures off the GUI thread, keeping the last few decoded.

    Signals:
        loaded(str, QImage): the path and its picture (on the GUI thread).
        failed(str, str): the path and why it could not be read.
    """

    loaded = Signal(str, QImage)
    failed = Signal(str, str)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._pool = OffThread("pictures", 1, parent=self)
        self._pool.done.connect(self._read_done)
        self._cache: OrderedDict[str, QImage] = OrderedDict()
        self._pending: set[str] = set()
        self.loaded.connect(self._keep)

    def cached(self, path: str) -> QImage | None:
        image = self._cache.get(path)
        if image is not None:
            self._cache.move_to_end(path)
        return image

    def request(self, path: str) -> None:
        """Read ``path`` unless it is cached or already being read; ``loaded`` tells when."""
        if path in self._cache or path in self._pending:
            return
        self._pending.add(path)
        self._pool.submit(path, _read, path)

    def forget(self, path: str) -> None:
        self._cache.pop(path, None)

    @Slot(object, object)
    def _read_done(self, path: str, read: QImage | str) -> None:
        self._pending.discard(path)
        if isinstance(read, str):
            self.failed.emit(path, read)
        else:
            self.loaded.emit(path, read)

    def _keep(self, path: str, image: QImage) -> None:
        self._cache[path] = image
        while len(self._cache) > CACHED:
            self._cache.popitem(last=False)

    def shutdown(self) -> None:
        self._pool.shutdown()


def _read(path: str) -> QImage | str:
    """The picture, or why it cannot be read (in the worker thread)."""
    reader = QImageReader(path)
    reader.setAutoTransform(True)
    image = reader.read()
    return f"cannot read {path}: {reader.errorString()}" if image.isNull() else image
