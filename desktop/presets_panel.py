"""The presets panel: the stored presets, Open..., and the errors of files that did not load."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    QTimer,
    Signal,
    Slot,
)
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
    QListView,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.preset_files import add_preset_files

if TYPE_CHECKING:
    from collections.abc import Iterable

    from core.ledger import Ledger

NAME_ROLE = Qt.ItemDataRole.UserRole
FOLLOW_MS = 2000


class PresetListModel(QAbstractListModel):
    """The names of the ledger's presets, sorted."""

    def __init__(self, ledger: Ledger, parent: Any = None) -> None:
        super().__init__(parent)
        self._ledger = ledger
        self._names: list[str] = ledger.presets.names()

    def reload(self) -> bool:
        """Read the names again; returns whether they changed (e.g. the CLI added a preset)."""
        names = self._ledger.presets.names()
        if names == self._names:
            return False
        self.beginResetModel()
        self._names = names
        self.endResetModel()
        return True

    def row_of(self, name: str) -> int:
        return self._names.index(name) if name in self._names else -1

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._names)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = 0) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._names):
            return None
        if role in (Qt.ItemDataRole.DisplayRole, NAME_ROLE):
            return self._names[index.row()]
        return None


class PresetsPanel(QWidget):
    """Lists presets; files given to ``add_files`` (Open, or a drop anywhere) are stored.

    Signals:
        preset_selected(str): the artist chose a preset (by name).
    """

    preset_selected = Signal(str)
    FILTER = "ComfyUI workflows (*.json *.png);;All files (*)"

    def __init__(self, ledger: Ledger, parent: Any = None) -> None:
        super().__init__(parent)
        self._ledger = ledger
        self.model = PresetListModel(ledger, self)
        self.list = QListView(self)
        self.list.setModel(self.model)
        self.list.setAccessibleName("Presets")
        self.list.selectionModel().currentChanged.connect(self._current_changed)
        self.open_button = QPushButton("&Open preset…", self)
        self.open_button.setAccessibleName("Open preset file")
        self.open_button.clicked.connect(self.open_files)
        self.errors = QLabel(self)
        self.errors.setWordWrap(True)
        self.errors.setAccessibleName("Preset errors")
        self.errors.setStyleSheet("color: #a4262c;")
        self.errors.hide()
        hint = QLabel("Drop .json or .png workflows anywhere on the window.", self)
        hint.setWordWrap(True)
        hint.setStyleSheet("color: palette(mid);")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.list, self.open_button, self.errors, hint):
            layout.addWidget(widget)
        # Presets added or removed by another process (the CLI) show up within a few seconds.
        self._follow = QTimer(self)
        self._follow.setInterval(FOLLOW_MS)
        self._follow.timeout.connect(self.follow_ledger)
        self._follow.start()

    @Slot()
    def follow_ledger(self) -> None:
        """Pick up presets changed elsewhere, keeping the current selection."""
        current = self.current_name()
        if self.model.reload() and current is not None:
            self.select(current)

    def stop(self) -> None:
        self._follow.stop()

    def add_files(self, paths: Iterable[Path]) -> list[str]:
        """Store each file as a preset; show the errors of those that failed. Returns names."""
        results = add_preset_files(self._ledger, list(paths))
        errors = [r.error for r in results if r.error]
        names = [r.name for r in results if r.name]
        self.errors.setText("\n".join(errors))
        self.errors.setVisible(bool(errors))
        if names:
            self.model.reload()
            self.select(names[-1])
        return names

    def select(self, name: str) -> None:
        row = self.model.row_of(name)
        if row >= 0:
            self.list.setCurrentIndex(self.model.index(row))

    def current_name(self) -> str | None:
        index = self.list.currentIndex()
        return index.data(NAME_ROLE) if index.isValid() else None

    @Slot()
    def open_files(self) -> None:
        paths = self.ask_files(self)
        if paths:
            self.add_files(paths)

    @classmethod
    def ask_files(cls, parent: QWidget) -> list[Path]:
        """The file dialog (tests monkeypatch this)."""
        files, _ = QFileDialog.getOpenFileNames(parent, "Open presets", "", cls.FILTER)
        return [Path(f) for f in files]

    @Slot(QModelIndex, QModelIndex)
    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            self.preset_selected.emit(current.data(NAME_ROLE))
