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

from core.batch.recall import add_recalled, recall_job, recall_png
from core.errors import BatchlineError
from desktop.preset_files import AddResult, add_preset_files, preset_of
from desktop.recall import RecallChoice, ask_recall_choice

if TYPE_CHECKING:
    from collections.abc import Iterable

    from core.batch.recall import Recall
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
        values_recalled(str, dict): recalled values for a preset's composer: its name and a
            composer state (`desktop.recall.apply_recalled` applies it).
    """

    preset_selected = Signal(str)
    values_recalled = Signal(str, dict)
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
        """Store each file as a preset; show the errors of those that failed. Returns names.

        A picture made with a stored preset's workflow asks first: its values may go to that
        preset's composer instead (`values_recalled`).
        """
        paths = list(paths)
        pictures = [path for path in paths if path.suffix.lower() == ".png"]
        results = add_preset_files(self._ledger, [p for p in paths if p not in pictures])
        results += [self._recall_picture(path) for path in pictures]
        errors = [r.error for r in results if r.error]
        names = [r.name for r in results if r.name]
        self.errors.setText("\n".join(errors))
        self.errors.setVisible(bool(errors))
        if names:
            self.model.reload()
            self.select(names[-1])
        return names

    def _recall_picture(self, path: Path) -> AddResult:
        """A dropped PNG: a new preset, or (when asked) its values for the matching one."""
        try:
            recall = recall_png(self._ledger, path.read_bytes(), path, self.current_name())
            choice: RecallChoice | None = RecallChoice.add
            if recall.preset is not None:
                choice = self.ask_recall(self, recall, path.name)
            if choice is RecallChoice.add:
                add_recalled(self._ledger, recall, recall.name)
                return AddResult(path, name=recall.name)
        except BatchlineError as exc:
            return AddResult(path, error=str(exc))
        except OSError as exc:
            return AddResult(path, error=f"{path.name}: {exc.strerror or exc}")
        if choice is RecallChoice.apply and recall.preset is not None:
            self._recalled(recall.preset, recall)
        return AddResult(path)

    def recall_job(self, job_id: str, *, seed_only: bool = False) -> str | None:
        """Put job `job_id`'s values (or its seed alone) into the composer.

        They go to the preset of the job's workflow; when no stored preset has it any more, it
        is added as a new one first. Returns that preset's name (None: the job is unknown).
        """
        try:
            recall = recall_job(self._ledger, job_id)
            name = recall.preset
            if name is None:
                name = recall.name
                add_recalled(self._ledger, recall, name)
                self.model.reload()
        except BatchlineError as exc:
            self.errors.setText(str(exc))
            self.errors.show()
            return None
        self._recalled(name, recall, seed_only=seed_only)
        return name

    def _recalled(self, name: str, recall: Recall, *, seed_only: bool = False) -> None:
        inputs = preset_of(self._ledger.presets.get(name)).seed_inputs
        state = {"seeds": recall.seed_state(inputs)} if seed_only else recall.composer_state(inputs)
        self.select(name)
        self.values_recalled.emit(name, state)

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

    @staticmethod
    def ask_recall(parent: QWidget, recall: Recall, file_name: str) -> RecallChoice | None:
        """The question for a picture matching a preset (tests monkeypatch this)."""
        return ask_recall_choice(parent, recall, file_name)

    @Slot(QModelIndex, QModelIndex)
    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            self.preset_selected.emit(current.data(NAME_ROLE))
