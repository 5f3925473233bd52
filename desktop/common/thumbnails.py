"""Thumbnails of output images, made with Pillow in worker threads and cached on disk."""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path
from typing import Any

from PIL import Image
from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtGui import QGuiApplication, QPixmap, QPixmapCache

from core.paths import cache_dir
from desktop.common.off_thread import OffThread

log = logging.getLogger(__name__)
THUMB_SIZE = 160  # logical pixels: a cell's picture (132) with room
_UNREADABLE = (OSError, ValueError, Image.DecompressionBombError)


def thumbnail_path(source: Path, folder: Path, size: int = THUMB_SIZE) -> Path:
    """Where the thumbnail of ``source`` (as it is now: size and mtime) is cached."""
    stat = source.stat()
    key = f"{source.resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{size}"
    return folder / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.png"


def make_thumbnail(source: Path, folder: Path, size: int = THUMB_SIZE) -> Path:
    """The cached thumbnail of ``source``, made now if missing (runs in a worker thread)."""
    target = thumbnail_path(source, folder, size)
    if target.exists():
        return target
    folder.mkdir(parents=True, exist_ok=True)
    with Image.open(source) as image:
        image.draft("RGB", (size, size))
        image.thumbnail((size, size))
        partial = target.with_suffix(".tmp")
        image.convert("RGBA").save(partial, "PNG")
    partial.replace(target)
    return target


def sharp_size() -> int:
    """``THUMB_SIZE`` in the device pixels of the sharpest screen: 320 at 200 %, where one of
    160 would be drawn blurred, twice its size."""
    ratio = max((screen.devicePixelRatio() for screen in QGuiApplication.screens()), default=1)
    return round(THUMB_SIZE * max(1.0, ratio))


class ThumbnailLoader(QObject):
    """Makes thumbnails of ``size`` pixels (default `sharp_size`) off the GUI thread;
    ``ready`` arrives on the GUI thread.

    Signals:
        ready(str, str): source path, thumbnail path.
        failed(str, str): source path, why.
    """

    ready = Signal(str, str)
    failed = Signal(str, str)

    def __init__(
        self, folder: Path | None = None, parent: Any = None, size: int | None = None
    ) -> None:
        super().__init__(parent)
        self.folder = folder or cache_dir() / "thumbnails"
        self.size = size or sharp_size()
        self._pool = OffThread("thumbnails", 2, _UNREADABLE, self)
        self._pool.done.connect(self._made)
        self._pool.failed.connect(self._not_made)
        self._done: dict[str, str] = {}
        self._pending: set[str] = set()

    def cached(self, source: str) -> str | None:
        return self._done.get(source)

    def pixmap(self, source: str) -> QPixmap | None:
        """The thumbnail of ``source`` to paint now (Qt's pixmap cache keeps it), else None
        and it is made, off the GUI thread, for a later paint (``ready``)."""
        thumb = self.cached(source)
        if thumb is None:
            self.request(source)  # painted now: worth making
            return None
        pixmap = QPixmap()
        if not QPixmapCache.find(thumb, pixmap) and pixmap.load(thumb):
            QPixmapCache.insert(thumb, pixmap)
        return pixmap

    def request(self, source: str) -> None:
        if source in self._done or source in self._pending:
            return
        self._pending.add(source)
        self._pool.submit(source, make_thumbnail, Path(source), self.folder, self.size)

    @Slot(object, object)
    def _made(self, source: str, thumb: Path) -> None:
        self._done[source] = str(thumb)
        self._pending.discard(source)
        self.ready.emit(source, str(thumb))

    @Slot(object, object)
    def _not_made(self, source: str, exc: Exception) -> None:
        log.warning("no thumbnail for %s: %s", source, exc)
        self._pending.discard(source)
        self.failed.emit(source, str(exc))

    def shutdown(self) -> None:
        self._pool.shutdown()
