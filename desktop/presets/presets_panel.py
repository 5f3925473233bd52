"""The presets panel: the stored presets, Open..., and the errors of files that did not load
(told to the window, which shows them as a notice)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    Qt,
    QTimer,
    Signal,
    Slot,
)
from PySide6.QtWidgets import (
    QFileDialog,
    QInputDialog,
    QLabel,
    QListView,
    QMenu,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.batch.queueing import stored_preset
from core.batch.recall import add_recalled, recall_job, recall_png
from core.errors import BatchlineError
from core.ledger import PresetOutcome
from core.ledger.arrivals import latest_arrival
from core.presets.composer_state import has_unsaved_values
from core.presets.storing import duplicate_preset, remove_preset, rename_preset
from desktop.common.questions import confirm
from desktop.composer.composer_memory import EDITED_TIP
from desktop.composer.recall import RecallChoice, ask_recall_choice
from desktop.presets.preset_files import AddResult, SameName, add_preset_files
from desktop.presets.preset_versions_dialog import PresetVersionsDialog
from desktop.presets.same_name import ask_same_name

if TYPE_CHECKING:
    from collections.abc import Iterable

    from core.batch.recall import Recall
    from core.ledger import Ledger

NAME_ROLE = Qt.ItemDataRole.UserRole
OPEN_FOLDER_KEY = "presets/open_folder"
FOLLOW_MS = 2000
_UNLIMITED = 16_777_215  # QWIDGETSIZE_MAX: no maximum


class PresetListModel(QAbstractListModel):
    """The names of the ledger's presets, sorted whatever their case; one whose values were
    changed in the composer and not saved reads "name (edited)"."""

    def __init__(self, ledger: Ledger, parent: Any = None) -> None:
        super().__init__(parent)
        self._ledger = ledger
        self._names: list[str] = ledger.presets.names()
        self._edited = self._read_edited()

    def _read_edited(self) -> set[str]:
        return {name for name in self._names if has_unsaved_values(self._ledger, name)}

    def reload(self) -> bool:
        """Read the names again; returns whether they changed (e.g. the CLI added a preset)."""
        names = self._ledger.presets.names()
        if names == self._names:
            return False
        self.beginResetModel()
        self._names = names
        self._edited = self._read_edited()
        self.endResetModel()
        return True

    @Slot(str, bool)
    def set_edited(self, name: str, edited: bool) -> None:
        """Mark or unmark preset ``name`` as edited (changed in the composer, not saved)."""
        if (name in self._edited) == edited:
            return
        if edited:
            self._edited.add(name)
        else:
            self._edited.discard(name)
        row = self.row_of(name)
        if row >= 0:
            self.dataChanged.emit(self.index(row), self.index(row))

    def row_of(self, name: str) -> int:
        return self._names.index(name) if name in self._names else -1

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._names)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = 0) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._names):
            return None
        name = self._names[index.row()]
        if role == NAME_ROLE:
            return name
        edited = name in self._edited
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return f"{name} (edited)" if edited else name
        if role == Qt.ItemDataRole.ToolTipRole and edited:
            return EDITED_TIP
        return None


class PresetsPanel(QWidget):
    """Lists presets (renamed, duplicated or removed from their context menu); files given to
    ``add_files`` (Open, or a drop anywhere) are stored.

    Signals:
        preset_selected(str): the artist chose a preset (by name).
        values_recalled(str, dict): recalled values for a preset's composer: its name and a
            composer state (`desktop.composer.recall.apply_recalled` applies it).
        failed(str): files that did not load, or an action refused, one line each.
        notice(str): something to tell the artist in passing (what of a picture made by
            another tool was not used).
    """

    preset_selected = Signal(str)
    arrived = Signal(str)
    values_recalled = Signal(str, dict)
    failed = Signal(str)
    notice = Signal(str)
    FILTER = "ComfyUI workflows (*.json *.png);;All files (*)"

    def __init__(self, ledger: Ledger, parent: Any = None) -> None:
        super().__init__(parent)
        self._ledger = ledger
        self.model = PresetListModel(ledger, self)
        self.list = QListView(self)
        self.list.setModel(self.model)
        self.list.setAccessibleName("Presets")
        self.list.selectionModel().currentChanged.connect(self._current_changed)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self._show_menu)
        self.open_button = QPushButton("&Open preset…", self)
        self.open_button.setAccessibleName("Open preset file")
        self.open_button.clicked.connect(self.open_files)
        hint = self.hint = QLabel("Drop .json or .png workflows anywhere on the window.", self)
        hint.setWordWrap(True)
        hint.setStyleSheet("color: palette(mid);")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.list, self.open_button, hint):
            layout.addWidget(widget)
        arrival = latest_arrival(ledger)
        self._arrived_at = arrival.at if arrival is not None else 0.0
        self._shown: tuple[str, int] | None = None  # the preset selected, and its version then
        # Presets added or removed by another process (the CLI) show up within a few seconds.
        self._follow = QTimer(self)
        self._follow.setInterval(FOLLOW_MS)
        self._follow.timeout.connect(self.follow_ledger)
        self._follow.start()

    def make_compact(self, compact: bool) -> None:
        """On a short screen: a list of about two rows (it scrolls) and no hint, so that the
        composer below keeps room for its form."""
        self.hint.setVisible(not compact)
        rows = self.list.sizeHintForRow(0) if self.model.rowCount() else self.fontMetrics().height()
        frame = 2 * self.list.frameWidth()
        self.list.setMaximumHeight(round(rows * 2.5) + frame if compact else _UNLIMITED)

    @Slot()
    def follow_ledger(self) -> None:
        """Pick up presets changed elsewhere, keeping the current selection."""
        current = self.current_name()
        if self.model.reload() and current is not None:
            self.select(current)
        self.show_new_version()
        arrival = latest_arrival(self._ledger)
        if arrival is not None and arrival.at > self._arrived_at:
            self._arrived_at = arrival.at
            self.select(arrival.preset)
            self.arrived.emit(arrival.preset)
            origin = f" from {arrival.origin}" if arrival.origin else ""
            self.notice.emit(f"'{arrival.preset}' arrived{origin} (version {arrival.version}).")

    def stop(self) -> None:
        self._follow.stop()

    def add_files(self, paths: Iterable[Path]) -> list[str]:
        """Store each file as a preset; show the errors of those that failed. Returns names.

        A picture made with a stored preset's workflow asks first: its values may go to that
        preset's composer instead (`values_recalled`).
        """
        paths = list(paths)
        pictures = [path for path in paths if path.suffix.lower() == ".png"]
        ask = lambda name: self.ask_same_name(self, name)  # noqa: E731
        results = add_preset_files(self._ledger, [p for p in paths if p not in pictures], ask)
        results += [self._recall_picture(path) for path in pictures]
        errors = [r.error for r in results if r.error]
        names = [r.name for r in results if r.name]
        self._show_error("\n".join(errors))
        for result in results:
            if result.outcome is PresetOutcome.unchanged:
                self.notice.emit(f"'{result.name}' is already a preset with this workflow.")
            elif result.outcome is PresetOutcome.replaced and result.name:
                number = self._ledger.presets.version(result.name)
                self.notice.emit(
                    f"Updated '{result.name}' (version {number}; the old one is kept)."
                )
        if names:
            self.model.reload()
            self.select(names[-1])
            self.show_new_version()
        return names

    def _recall_picture(self, path: Path) -> AddResult:
        """A dropped PNG: a new preset, or (when asked) its values for the matching one; one
        with only another tool's A1111 parameters: those that fit, in the current preset."""
        try:
            recall = recall_png(self._ledger, path.read_bytes(), path, self.current_name())
            choice: RecallChoice | None = RecallChoice.add
            if recall.parameters_only:
                choice = RecallChoice.apply
            elif recall.preset is not None:
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
            if recall.parameters_only:
                self.notice.emit(recall.parameters_text(path.name))
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
            self._show_error(str(exc))
            return None
        self._recalled(name, recall, seed_only=seed_only)
        return name

    def _recalled(self, name: str, recall: Recall, *, seed_only: bool = False) -> None:
        inputs = stored_preset(self._ledger.presets.get(name)).seed_inputs
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
        """Ask for files, starting in the folder last opened from (home the first time)."""
        paths = self.ask_files(self, self.open_folder())
        if paths:
            self._ledger.settings.set(OPEN_FOLDER_KEY, str(paths[0].parent))
            self.add_files(paths)

    def open_folder(self) -> Path:
        """Where the Open dialog starts: the folder last opened from while it exists, else home."""
        last = self._ledger.settings.get(OPEN_FOLDER_KEY)
        if isinstance(last, str) and last and Path(last).is_dir():
            return Path(last)
        return Path.home()

    @classmethod
    def ask_files(cls, parent: QWidget, folder: Path) -> list[Path]:
        """The file dialog (tests monkeypatch this)."""
        files, _ = QFileDialog.getOpenFileNames(parent, "Open presets", str(folder), cls.FILTER)
        return [Path(f) for f in files]

    # --- rename, duplicate, remove --------------------------------------------------------------

    @Slot(QPoint)
    def _show_menu(self, position: QPoint) -> None:
        index = self.list.indexAt(position)
        if not index.isValid():
            return
        menu = self.context_menu(index.data(NAME_ROLE))
        menu.exec(self.list.viewport().mapToGlobal(position))
        menu.deleteLater()

    def context_menu(self, name: str) -> QMenu:
        """Rename…, Duplicate, Versions… and Remove… for preset `name`."""
        menu = QMenu(self)
        menu.addAction("&Rename…", lambda: self.ask_rename(name))
        menu.addAction("&Duplicate", lambda: self.duplicate(name))
        menu.addAction("&Versions…", lambda: self.ask_version(name))
        menu.addAction("Re&move…", lambda: self.ask_remove(name))
        return menu

    def ask_version(self, name: str) -> None:
        number = self.choose_version(self, self._ledger, name)
        if number is not None:
            self.restore(name, number)

    @staticmethod
    def choose_version(parent: QWidget, ledger: Ledger, name: str) -> int | None:
        """The preset's versions, and the one to restore (tests monkeypatch this)."""
        dialog = PresetVersionsDialog(ledger, name, parent)
        dialog.exec()
        return dialog.chosen

    def restore(self, name: str, number: int) -> bool:
        """Make version ``number`` of the preset current again (as a new version); the
        composer shows it, keeping what the artist changed there."""
        try:
            outcome, current = self._ledger.presets.restore(name, number)
        except BatchlineError as exc:
            self._show_error(str(exc))
            return False
        if outcome is PresetOutcome.unchanged:
            self.notice.emit(f"Version {number} of '{name}' is its content already.")
        else:
            self.notice.emit(
                f"Version {number} of '{name}' is current again, as version {current}."
            )
        self.select(name)
        self.show_new_version()
        return True

    def ask_rename(self, name: str) -> None:
        new_name = self.ask_text(self, "Rename preset", f"New name for “{name}”:", name)
        if new_name is not None and new_name.strip() and new_name.strip() != name:
            self.rename(name, new_name.strip())

    def rename(self, name: str, new_name: str) -> bool:
        """Rename a preset; a name taken (or not valid) is refused with one line."""
        try:
            rename_preset(self._ledger, name, new_name)
        except BatchlineError as exc:
            self._show_error(str(exc))
            return False
        self.model.reload()
        self.select(new_name)
        return True

    def duplicate(self, name: str) -> str | None:
        """Store a copy of the preset under a free name and select it."""
        try:
            copy = duplicate_preset(self._ledger, name)
        except BatchlineError as exc:
            self._show_error(str(exc))
            return None
        self.model.reload()
        self.select(copy)
        return copy

    def ask_remove(self, name: str) -> None:
        if self.confirm(self, "Remove preset", f"Remove the preset “{name}”? Its batches stay."):
            self.remove(name)

    def remove(self, name: str) -> None:
        """Forget the preset; the next one (or the previous) is selected instead."""
        row = self.model.row_of(name)
        try:
            remove_preset(self._ledger, name)
        except BatchlineError as exc:
            self._show_error(str(exc))
            return
        self.model.reload()
        if self.model.rowCount():
            self.list.setCurrentIndex(self.model.index(min(row, self.model.rowCount() - 1)))

    @staticmethod
    def ask_text(parent: QWidget, title: str, label: str, text: str) -> str | None:
        """A one-line question (tests monkeypatch this); None when cancelled."""
        answer, ok = QInputDialog.getText(parent, title, label, text=text)
        return answer if ok else None

    confirm = staticmethod(confirm)  # tests replace it with an answer

    @staticmethod
    def ask_same_name(parent: QWidget, name: str) -> SameName | None:
        """A dropped workflow named as a preset with other content (tests monkeypatch this)."""
        return ask_same_name(parent, name)

    def _show_error(self, text: str) -> None:
        if text:
            self.failed.emit(text)

    @staticmethod
    def ask_recall(parent: QWidget, recall: Recall, file_name: str) -> RecallChoice | None:
        """The question for a picture matching a preset (tests monkeypatch this)."""
        return ask_recall_choice(parent, recall, file_name)

    @Slot(QModelIndex, QModelIndex)
    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            self._show(current.data(NAME_ROLE))

    def show_new_version(self) -> None:
        """The selected preset again (`preset_selected`) when its content changed since it
        was selected: updated by a drop, sent from ComfyUI's editor, restored. Seen: the
        window said "'Fox' arrived (version 2)" and queued version 1, the composer's."""
        name, shown = self.current_name(), self._shown
        changed = shown is not None and shown[0] == name and self._version(name) != shown[1]
        if name is not None and changed:
            self._show(name)

    def _show(self, name: str) -> None:
        self._shown = (name, self._version(name))
        self.preset_selected.emit(name)

    def _version(self, name: str) -> int:
        try:
            return self._ledger.presets.version(name)
        except BatchlineError:  # removed meanwhile: the list follows
            return -1
