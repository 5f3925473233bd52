"""A picture input's field in the composer: a thumbnail, the file's name, "Choose…", and a
drop target. A drop of one picture file sets it; a drop of a folder or of several files asks
for an axis "one job per picture" (``axis_wanted``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QMimeData, Qt, Signal, Slot
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLabel, QPushButton, QWidget

if TYPE_CHECKING:
    from PySide6.QtGui import QDragEnterEvent, QDropEvent

THUMB = 48
_MISSING_STYLE = "color: #a4262c; font-weight: bold;"
PICTURE_FILTER = "Pictures (*.png *.jpg *.jpeg *.webp *.bmp *.gif *.tif *.tiff);;All files (*)"


def dropped_paths(mime: QMimeData) -> list[Path]:
    """The local files and folders of a drop, in the order dropped (other URLs left out)."""
    return [Path(url.toLocalFile()) for url in mime.urls() if url.isLocalFile()]


def thumbnail(path: Path | None, size: int = THUMB) -> QPixmap:
    """The picture scaled to fit ``size`` (a null pixmap when it cannot be read)."""
    pixmap = QPixmap(str(path)) if path is not None else QPixmap()
    if pixmap.isNull():
        return pixmap
    return pixmap.scaled(
        size,
        size,
        Qt.AspectRatioMode.KeepAspectRatio,
        Qt.TransformationMode.SmoothTransformation,
    )


class PictureField(QWidget):
    """The picture an input takes: a file of the artist's (``path``), or, until one is chosen,
    the name the workflow gives (a file already on the server).

    Signals:
        changed(): a file was chosen or dropped.
        axis_wanted(list): a folder or several files were dropped (their paths): one job each.
    """

    changed = Signal()
    axis_wanted = Signal(list)

    def __init__(self, server_name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._server_name = server_name
        self.path: Path | None = None
        self._varied = ""
        self._missing = ""
        self.setAcceptDrops(True)
        self.thumb = QLabel(self)
        self.thumb.setFixedSize(THUMB, THUMB)
        self.thumb.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.thumb.setStyleSheet("border: 1px dashed #8a8886; color: #605e5c;")
        self.name = QLabel(self)
        self.name.setWordWrap(True)
        self.name.setTextFormat(Qt.TextFormat.PlainText)
        self.choose = QPushButton("Choose…", self)
        self.choose.setToolTip(
            "Choose a picture from your disk, or drop one here; drop a folder or several "
            "pictures for one job per picture"
        )
        self.choose.clicked.connect(self.ask)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.thumb)
        row.addWidget(self.name, 1)
        row.addWidget(self.choose)
        self._show()

    @property
    def server_name(self) -> str:
        """The file on the server the input names while no file of the artist's is chosen."""
        return self._server_name

    def set_server_name(self, name: str) -> None:
        """Name another file of the server's (one picked from its list)."""
        self._server_name = name
        self._show()
        self.changed.emit()

    def mark_missing(self, why: str) -> None:
        """Mark the server's file as missing (``why``: the tooltip saying so), or unmark ("")."""
        self._missing = why
        self._show()

    def set_varied(self, caption: str) -> None:
        """An axis varies the input (``caption``: which, "" when none): the field stands
        aside, its own picture kept for when the axis goes."""
        self.choose.setEnabled(not caption)
        self.thumb.setEnabled(not caption)
        self._varied = caption
        self._show()

    def set_path(self, path: Path | None) -> None:
        """Show ``path`` (None: back to the workflow's own picture)."""
        self.path = path
        self._show()
        self.changed.emit()

    def _show(self) -> None:
        if self._varied:
            self.thumb.setPixmap(QPixmap())
            self.thumb.setText("axis")
            self.name.setText(f"one per job, from the axis {self._varied}")
            return
        self.name.setStyleSheet(_MISSING_STYLE if self._missing and self.path is None else "")
        if self.path is None:
            self.thumb.setPixmap(QPixmap())
            self.thumb.setText("drop")
            self.name.setText(f"{self._server_name} (on the server)")
            self.name.setToolTip(
                self._missing or "The workflow's own picture, a file in the server's input folder"
            )
            return
        pixmap = thumbnail(self.path)
        if pixmap.isNull():
            self.thumb.setText("?")  # not a picture Qt reads: Queue says why, naming it
        else:
            self.thumb.setPixmap(pixmap)
        self.name.setText(self.path.name)
        self.name.setToolTip(str(self.path))

    @Slot()
    def ask(self) -> None:
        start = str(self.path.parent) if self.path is not None else ""
        chosen, _ = QFileDialog.getOpenFileName(self, "Choose a picture", start, PICTURE_FILTER)
        if chosen:
            self.set_path(Path(chosen))

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if dropped_paths(event.mimeData()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = dropped_paths(event.mimeData())
        if not paths:
            event.ignore()
            return
        event.acceptProposedAction()
        if len(paths) == 1 and not paths[0].is_dir():
            self.set_path(paths[0])
        else:
            self.axis_wanted.emit([str(path) for path in paths])


def picture_value(field: PictureField) -> Any:
    """The field's value as the composer keeps it: the chosen file's path, or None."""
    return str(field.path) if field.path is not None else None
