"""The gallery: a contact sheet of one batch's finished outputs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QPersistentModelIndex,
    QSize,
    Qt,
    QTimer,
    QUrl,
    Signal,
    Slot,
)
from PySide6.QtGui import QAction, QDesktopServices, QIcon, QPixmap
from PySide6.QtWidgets import QComboBox, QLabel, QListView, QVBoxLayout, QWidget

from core.job_state import JobState
from desktop.thumbnails import THUMB_SIZE

if TYPE_CHECKING:
    from core.ledger import Ledger
    from desktop.thumbnails import ThumbnailLoader

PATH_ROLE = Qt.ItemDataRole.UserRole
JOB_ID_ROLE = Qt.ItemDataRole.UserRole + 1
GALLERY_ICON = min(THUMB_SIZE, 128)


class GalleryModel(QAbstractListModel):
    """Output images (job id, path) of a batch's succeeded jobs; icons once thumbnails exist."""

    def __init__(self, ledger: Ledger, thumbnails: ThumbnailLoader, parent: Any = None) -> None:
        super().__init__(parent)
        self._ledger = ledger
        self._thumbnails = thumbnails
        self._items: list[tuple[str, str]] = []
        self._icons: dict[str, QIcon] = {}
        self._outputs: dict[str, list[str]] = {}  # succeeded jobs never change their outputs
        self.output_dir: Path | None = None
        thumbnails.ready.connect(self.thumbnail_ready)

    def load_batch(self, batch_id: str | None) -> None:
        self.set_items(self._batch_outputs(batch_id) if batch_id else [])

    def set_items(self, items: list[tuple[str, str]]) -> None:
        """Show these (job id, image path) pairs, appending when the old ones are a prefix."""
        if items == self._items:
            return
        known = set(self._items)
        if self._items and items[: len(self._items)] == self._items:
            self._append([item for item in items if item not in known])
        else:
            self.beginResetModel()
            self._items = items
            self.endResetModel()
        for _job, path in items:
            self._thumbnails.request(path)

    def _append(self, new: list[tuple[str, str]]) -> None:
        first = len(self._items)
        self.beginInsertRows(QModelIndex(), first, first + len(new) - 1)
        self._items.extend(new)
        self.endInsertRows()

    def _batch_outputs(self, batch_id: str) -> list[tuple[str, str]]:
        items: list[tuple[str, str]] = []
        for job in self._ledger.jobs(batch=batch_id, states=[JobState.succeeded]):
            if job.id not in self._outputs:
                self._outputs[job.id] = job_outputs(self._ledger, job.id, self.output_dir)
            items.extend((job.id, path) for path in self._outputs[job.id])
        return items

    @Slot(str, str)
    def thumbnail_ready(self, source: str, thumb: str) -> None:
        self._icons[source] = QIcon(QPixmap(thumb))  # a QIcon scales to the view's icon size
        for row, (_job, path) in enumerate(self._items):
            if path == source:
                index = self.index(row)
                self.dataChanged.emit(index, index, [Qt.ItemDataRole.DecorationRole])

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._items)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = 0) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._items):
            return None
        job_id, path = self._items[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return job_id.rsplit("_", 1)[-1]
        if role == Qt.ItemDataRole.DecorationRole:
            return self._icons.get(path)
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{job_id}\n{path}"
        if role == PATH_ROLE:
            return path
        if role == JOB_ID_ROLE:
            return job_id
        return None


def job_outputs(ledger: Ledger, job_id: str, output_dir: Path | None = None) -> list[str]:
    """The existing output files of a job's latest attempt with outputs (relative ones under
    output_dir): an older attempt's when it succeeded late and superseded the newer one."""
    with_outputs = [attempt for attempt in ledger.attempts(job_id) if attempt.outputs]
    paths = [Path(p) for p in with_outputs[-1].outputs] if with_outputs else []
    if output_dir is not None:
        paths = [p if p.is_absolute() else output_dir / p for p in paths]
    return [str(p) for p in paths if p.is_file()]


class GalleryWidget(QWidget):
    """Choose a batch, see its outputs; activate (double-click/Enter) one to open it.

    Signals:
        recall_requested(str, bool): put this picture's job's values (True: its seed alone)
            into the composer (the picture's context menu).
    """

    recall_requested = Signal(str, bool)

    def __init__(self, ledger: Ledger, thumbnails: ThumbnailLoader, parent: Any = None) -> None:
        super().__init__(parent)
        self._ledger = ledger
        self.model = GalleryModel(ledger, thumbnails, self)
        self.batch = QComboBox(self)
        self.batch.setAccessibleName("Gallery batch")
        self.view = QListView(self)
        self.view.setAccessibleName("Gallery")
        self.view.setViewMode(QListView.ViewMode.IconMode)
        self.view.setIconSize(QSize(GALLERY_ICON, GALLERY_ICON))
        self.view.setGridSize(QSize(GALLERY_ICON + 12, GALLERY_ICON + 26))
        self.view.setResizeMode(QListView.ResizeMode.Adjust)
        self.view.setSpacing(6)
        self.view.setMovement(QListView.Movement.Static)
        self.view.setModel(self.model)
        self.view.activated.connect(self.open_item)
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        self.send_to_composer = QAction("Send to c&omposer", self.view)
        self.send_to_composer.triggered.connect(lambda: self._recall(seed_only=False))
        self.use_seed = QAction("Use its s&eed", self.view)
        self.use_seed.triggered.connect(lambda: self._recall(seed_only=True))
        self.view.addActions([self.send_to_composer, self.use_seed])
        self.empty = QLabel("Finished images of the chosen batch appear here.", self)
        layout = QVBoxLayout(self)
        layout.addWidget(self.batch)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.empty)
        self.batch.currentIndexChanged.connect(self.refresh)
        self._timer = QTimer(self)
        self._timer.setInterval(1000)
        self._timer.timeout.connect(self.refresh)
        self._stopped = False

    def start(self) -> None:
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()
        self._stopped = True

    def set_batches(self, batch_ids: list[str], current: str | None = None) -> None:
        shown = [self.batch.itemText(i) for i in range(self.batch.count())]
        if shown != batch_ids:
            keep = current or self.batch.currentText()
            self.batch.blockSignals(True)
            self.batch.clear()
            self.batch.addItems(batch_ids)
            self.batch.blockSignals(False)
            self.batch.setCurrentIndex(max(0, self.batch.findText(keep)))
        elif current:
            self.batch.setCurrentIndex(self.batch.findText(current))
        self.refresh()

    @Slot()
    def refresh(self) -> None:
        if self._stopped:
            return
        if self.isVisible() or not self._timer.isActive():
            self.model.load_batch(self.batch.currentText() or None)
        self.empty.setVisible(self.model.rowCount() == 0)

    def _recall(self, *, seed_only: bool) -> None:
        index = self.view.currentIndex()
        if index.isValid():
            self.recall_requested.emit(index.data(JOB_ID_ROLE), seed_only)

    @Slot(QModelIndex)
    def open_item(self, index: QModelIndex) -> None:
        QDesktopServices.openUrl(QUrl.fromLocalFile(index.data(PATH_ROLE)))
