"""The picture viewer: one batch's pictures, one at a time, with the picture's values beside it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Slot
from PySide6.QtGui import QImage, QKeySequence, QShortcut
from PySide6.QtWidgets import QHBoxLayout, QWidget

from core.batch.pictures import Picture, batch_pictures
from desktop.picture_loader import PictureLoader
from desktop.viewer_canvas import ZOOM_STEP, PictureCanvas

if TYPE_CHECKING:
    from pathlib import Path

    from core.ledger import Ledger


class PictureViewer(QWidget):
    """A window over one batch's pictures in job order: Left/Right (Home/End) step through
    them, the canvas fits, zooms and pans, Escape closes."""

    def __init__(self, ledger: Ledger, output_dir: Path | None = None, parent: Any = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.ledger = ledger
        self.output_dir = output_dir
        self.setWindowTitle("Batchline — Picture")
        self.pictures: list[Picture] = []
        self.index = -1
        self.batch_id: str | None = None
        self.loader = PictureLoader(self)
        self.loader.loaded.connect(self._on_loaded)
        self.loader.failed.connect(self._on_failed)
        self.canvas = PictureCanvas(self)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.canvas, 1)
        self._keys()

    def _keys(self) -> None:
        keys = {
            Qt.Key.Key_Left: self.previous,
            Qt.Key.Key_Right: self.next,
            Qt.Key.Key_Home: self.first,
            Qt.Key.Key_End: self.last,
            Qt.Key.Key_Escape: self.close,
            Qt.Key.Key_Plus: lambda: self.canvas.zoom_by(ZOOM_STEP, self._cursor()),
            Qt.Key.Key_Equal: lambda: self.canvas.zoom_by(ZOOM_STEP, self._cursor()),
            Qt.Key.Key_Minus: lambda: self.canvas.zoom_by(1 / ZOOM_STEP, self._cursor()),
            Qt.Key.Key_F: self.canvas.fit,
        }
        for key, slot in keys.items():
            shortcut = QShortcut(QKeySequence(key), self)
            shortcut.activated.connect(slot)
        actual = QShortcut(QKeySequence("Ctrl+0"), self)
        actual.activated.connect(self.canvas.actual_size)

    def _cursor(self) -> Any:
        """The cursor on the canvas when it is over it (zoom keeps that point), else None."""
        point = self.canvas.mapFromGlobal(self.cursor().pos()).toPointF()
        return point if self.canvas.rect().contains(point.toPoint()) else None

    # --- what is shown --------------------------------------------------------------------------

    def open_job(self, job_id: str) -> bool:
        """Show the job's first picture among its batch's; False when it has none."""
        batch_id = self.ledger.job(job_id).batch
        pictures = batch_pictures(self.ledger, batch_id, self.output_dir)
        index = next((i for i, p in enumerate(pictures) if p.job_id == job_id), None)
        if index is None:
            return False
        self.batch_id = batch_id
        self.pictures = pictures
        self.show_index(index)
        return True

    def current(self) -> Picture | None:
        return self.pictures[self.index] if 0 <= self.index < len(self.pictures) else None

    def show_index(self, index: int) -> None:
        if not self.pictures:
            self.index = -1
            self.canvas.set_image(None, "No pictures left in this batch.")
            return
        self.index = min(max(index, 0), len(self.pictures) - 1)
        picture = self.pictures[self.index]
        path = str(picture.path)
        self.setWindowTitle(
            f"{picture.path.name} — {self.index + 1} of {len(self.pictures)} — Batchline"
        )
        image = self.loader.cached(path)
        if image is not None:
            self.canvas.set_image(image)
        else:
            self.canvas.set_image(None, "Loading…")
            self.loader.request(path)
        for neighbour in (self.index + 1, self.index - 1):
            if 0 <= neighbour < len(self.pictures):
                self.loader.request(str(self.pictures[neighbour].path))

    @Slot()
    def next(self) -> None:
        self.show_index(self.index + 1)

    @Slot()
    def previous(self) -> None:
        self.show_index(self.index - 1)

    @Slot()
    def first(self) -> None:
        self.show_index(0)

    @Slot()
    def last(self) -> None:
        self.show_index(len(self.pictures) - 1)

    @Slot(str, QImage)
    def _on_loaded(self, path: str, image: QImage) -> None:
        picture = self.current()
        if picture is not None and str(picture.path) == path:
            self.canvas.set_image(image)

    @Slot(str, str)
    def _on_failed(self, path: str, why: str) -> None:
        picture = self.current()
        if picture is not None and str(picture.path) == path:
            self.canvas.set_image(None, why)

    def shutdown(self) -> None:
        self.loader.shutdown()
