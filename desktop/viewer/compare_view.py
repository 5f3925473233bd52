"""Two pictures side by side: a pinned one on the left, and on the right one of a list the
artist steps through (Left/Right); zoom and pan are one view shared by both canvases."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Slot
from PySide6.QtGui import QAction, QImage, QKeySequence
from PySide6.QtWidgets import QGridLayout, QLabel, QSizePolicy, QWidget

from core.errors import BatchlineError
from desktop.sheet.sheet_batch import job_captions
from desktop.viewer.viewer_canvas import ZOOM_STEP, PictureCanvas

if TYPE_CHECKING:
    from collections.abc import Callable

    from core.ledger import Ledger
    from core.pictures.pictures import Picture

PREFERRED_SIZE = (1200, 700)
COMPARE_KEYS = (  # (name, text, key): bound here and told in the tooltips
    ("previous", "Previous", "Left"),
    ("next", "Next", "Right"),
    ("fit", "Fit", "F"),
    ("actual", "100 %", "A"),
    ("zoom_in", "Zoom in", "+"),
    ("zoom_out", "Zoom out", "-"),
    ("close", "Close", "Escape"),
)


class CompareView(QWidget):
    """A window of two canvases in step: the left shows ``pinned``, the right
    ``pictures[index]``; wheel, drag, +/-, F and A on either move both. ``caption`` says what
    a picture is ("Fox portrait · cfg 8 · seed 2"; its file's name when not given)."""

    def __init__(
        self,
        pinned: Picture,
        pictures: list[Picture],
        index: int = 0,
        parent: Any = None,
        caption: Callable[[Picture], str] | None = None,
    ) -> None:
        super().__init__(parent)
        self.caption = caption or (lambda picture: picture.path.name)
        self.setWindowFlag(Qt.WindowType.Window)
        self.pinned = pinned
        self.pictures = list(pictures)
        self.index = -1
        self.left = self._canvas("Pinned picture")
        self.right = self._canvas("Picture compared")
        self.left_name = self._name()
        self.right_name = self._name()
        self._following = False
        for one, other in ((self.left, self.right), (self.right, self.left)):
            one.view_changed.connect(lambda one=one, other=other: self._in_step(one, other))
        layout = QGridLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.left_name, 0, 0)
        layout.addWidget(self.right_name, 0, 1)
        layout.addWidget(self.left, 1, 0)
        layout.addWidget(self.right, 1, 1)
        self.actions_by_name = self._actions()
        self.resize(*PREFERRED_SIZE)
        self.left.set_image(_image(pinned), "The pinned picture cannot be read.")
        self.left_name.setText(f"Pinned: {self.caption(pinned)}")
        self.show_index(index)

    def _canvas(self, name: str) -> PictureCanvas:
        canvas = PictureCanvas(self)
        canvas.setAccessibleName(name)
        return canvas

    def _name(self) -> QLabel:
        label = QLabel(self)
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        label.setAccessibleName("Picture name")
        return label

    def _actions(self) -> dict[str, QAction]:
        slots = {
            "previous": lambda: self.show_index(self.index - 1),
            "next": lambda: self.show_index(self.index + 1),
            "fit": self.right.fit,
            "actual": self.right.actual_size,
            "zoom_in": lambda: self.right.zoom_by(ZOOM_STEP),
            "zoom_out": lambda: self.right.zoom_by(1 / ZOOM_STEP),
            "close": self.close,
        }
        actions = {}
        for name, text, key in COMPARE_KEYS:
            action = QAction(text, self)
            action.setShortcut(QKeySequence(key))
            action.setToolTip(f"{text} ({key})")
            action.triggered.connect(lambda _checked=False, slot=slots[name]: slot())
            self.addAction(action)
            actions[name] = action
        return actions

    def current(self) -> Picture | None:
        return self.pictures[self.index] if 0 <= self.index < len(self.pictures) else None

    def show_index(self, index: int) -> None:
        """Show the ``index``-th picture on the right (kept within the list), in the view the
        canvases share now."""
        if not self.pictures:
            return
        self.index = min(max(index, 0), len(self.pictures) - 1)
        picture = self.pictures[self.index]
        self._following = True  # its fit is not the shared view's: stepping keeps that
        try:
            self.right.set_image(_image(picture), f"{picture.path.name} cannot be read.")
        finally:
            self._following = False
        self.right.follow(self.left)
        said = self.caption(picture)
        self.right_name.setText(f"{said} ({self.index + 1} of {len(self.pictures)})")
        self.setWindowTitle(f"Compare {self.caption(self.pinned)} and {said} — Batchline")

    @Slot()
    def _in_step(self, moved: PictureCanvas, other: PictureCanvas) -> None:
        if self._following:
            return
        self._following = True
        try:
            other.follow(moved)
        finally:
            self._following = False


def ledger_captions(ledger: Ledger) -> Callable[[Picture], str]:
    """Captions from the ledger: a picture's batch title and its job's values; its file's name
    when its job is gone."""
    captions = job_captions(ledger)

    def caption(picture: Picture) -> str:
        try:
            return captions(picture.job_id)
        except BatchlineError:
            return picture.path.name

    return caption


def _image(picture: Picture) -> QImage | None:
    image = QImage(str(picture.path))
    return None if image.isNull() else image
