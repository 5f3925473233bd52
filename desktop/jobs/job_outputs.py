"""One job's output pictures as a list model, with their thumbnails."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt, Slot
from PySide6.QtGui import QIcon, QPixmap

if TYPE_CHECKING:
    from desktop.common.thumbnails import ThumbnailLoader

PATH_ROLE = Qt.ItemDataRole.UserRole


class OutputsModel(QAbstractListModel):
    """Output pictures (paths) of one job; icons once their thumbnails exist."""

    def __init__(self, thumbnails: ThumbnailLoader, parent: Any = None) -> None:
        super().__init__(parent)
        self._thumbnails = thumbnails
        self._paths: list[str] = []
        self._icons: dict[str, QIcon] = {}
        thumbnails.ready.connect(self.thumbnail_ready)

    def set_paths(self, paths: list[str]) -> None:
        if paths == self._paths:
            return
        self.beginResetModel()
        self._paths = list(paths)
        self.endResetModel()
        for path in paths:
            cached = self._thumbnails.cached(path)
            if cached:
                self.thumbnail_ready(path, cached)
            else:
                self._thumbnails.request(path)

    @Slot(str, str)
    def thumbnail_ready(self, source: str, thumb: str) -> None:
        if source not in self._paths:
            return
        self._icons[source] = QIcon(QPixmap(thumb))  # a QIcon scales to the view's icon size
        index = self.index(self._paths.index(source))
        self.dataChanged.emit(index, index, [Qt.ItemDataRole.DecorationRole])

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._paths)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = 0) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._paths):
            return None
        path = self._paths[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return Path(path).name
        if role == Qt.ItemDataRole.DecorationRole:
            return self._icons.get(path)
        if role in (Qt.ItemDataRole.ToolTipRole, PATH_ROLE):
            return path
        return None
