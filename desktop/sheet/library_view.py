"""The library: every picture across the batches, newest first, in the contact sheet's cells; a
search box over it (docs/search.md), saved searches as boards, and the sheet's actions on a
selection or on every picture the search finds (star, reject, export with parameters, trash);
two pictures side by side (Compare)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QItemSelection, QModelIndex, QSignalBlocker, Qt, Signal, Slot
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListView,
    QPushButton,
    QSizePolicy,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.errors import BatchlineError
from core.ledger.marks import Mark
from core.ledger.settings import EXPORT_SIDECAR, Settings
from core.pictures.picture_parameters import export_picture
from core.pictures.pictures import Picture
from core.pictures.search import (
    MAX_LIMIT,
    delete_search,
    page_after,
    save_search,
    saved_searches,
)
from core.pictures.trash import trash_picture
from desktop.common.questions import confirm
from desktop.sheet.library_model import LibraryModel
from desktop.sheet.sheet_cell import SheetCellDelegate

if TYPE_CHECKING:
    from core.ledger import Ledger
    from core.ledger.picture_index import PictureHit
    from desktop.common.controller_port import ControllerPort
    from desktop.common.thumbnails import ThumbnailLoader

ALL_PICTURES = "All pictures (library)"
SELECTED, ALL_RESULTS = "Selected pictures", "Every picture found"
SEARCH_TIP = (
    "Words of the prompt, or fields: seed:*42, model:dreamshaper, lora:detail, value:euler, "
    "is:starred, batch:evening, date:2026-12 (see docs/search.md); Enter searches"
)


def board_text(name: str) -> str:
    """How the chooser lists a saved search: "★ Fox refiner (board)"."""
    return f"★ {name} (board)"


def ask_name(parent: QWidget, suggested: str) -> str | None:
    """The saved search's name, asked (None: cancelled). Tests replace it."""
    name, ok = QInputDialog.getText(parent, "Save search", "Name of the board:", text=suggested)
    return name.strip() if ok and name.strip() else None


def ask_folder(parent: QWidget, start: Path) -> Path | None:
    """The folder to export to (None: cancelled). Tests replace it."""
    chosen = QFileDialog.getExistingDirectory(parent, "Export the pictures to", str(start))
    return Path(chosen) if chosen else None


class LibraryWidget(QWidget):
    """The library's search, boards, cells and actions.

    Signals:
        open_requested(list, int): show these pictures in the viewer, from this one.
        compare_requested(object, object): show these two pictures side by side.
        notice(str): something to tell the artist in passing.
        failed(str): what the artist asked for went wrong; why, in one line.
        pictures_changed(str): this job's mark or pictures changed here.
        selection_changed(list): the jobs of the pictures selected now (the window's actions
            and details follow them, as they follow the sheet's).
    """

    open_requested = Signal(list, int)
    compare_requested = Signal(object, object)
    notice = Signal(str)
    failed = Signal(str)
    pictures_changed = Signal(str)
    selection_changed = Signal(list)

    def __init__(
        self,
        ledger: Ledger,
        thumbnails: ThumbnailLoader,
        controller: ControllerPort,
        output_dir: Path | None = None,
        parent: Any = None,
    ) -> None:
        super().__init__(parent)
        self._ledger = ledger
        self._controller = controller
        self.model = LibraryModel(ledger, thumbnails, self)
        self.model.output_dir = output_dir
        self.boards = self._combo("Library or board", "All pictures, or a saved search")
        self.boards.currentIndexChanged.connect(self._on_board)
        self.search_box = QLineEdit(self)
        self.search_box.setAccessibleName("Search pictures")
        self.search_box.setPlaceholderText("Search: fox lora:refiner seed:*42")
        self.search_box.setToolTip(SEARCH_TIP)
        self.search_box.setClearButtonEnabled(True)
        self.search_box.returnPressed.connect(self.run_search)
        self.why = QLabel(self)
        self.why.setAccessibleName("Search problem")
        self.why.setTextFormat(Qt.TextFormat.PlainText)
        self.why.setWordWrap(True)
        self.why.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.why.setStyleSheet("color: #c9302c")
        self.why.hide()
        self.save = self._button("Save search…", "Keep this search as a board", self.ask_save)
        self.delete = self._button("Delete board", "Forget the board shown", self.delete_board)
        self.scope = self._combo("Act on", "The selected pictures, or every one the search finds")
        self.scope.addItems([SELECTED, ALL_RESULTS])
        self.scope.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.scope.setSizePolicy(QSizePolicy.Policy.Minimum, QSizePolicy.Policy.Fixed)
        self.star = self._button("★ Star", "Star the pictures", lambda: self.bulk_mark(Mark.star))
        self.reject = self._button(
            "✕ Reject", "Reject the pictures", lambda: self.bulk_mark(Mark.reject)
        )
        self.unmark = self._button("Unmark", "Take the marks off", lambda: self.bulk_mark(None))
        self.export = self._button(
            "Export…", "Copy the pictures to a folder, with their parameters", self.ask_export
        )
        self.trash = self._button(
            "Trash…", "Move the pictures to the trash (starred ones stay)", self.ask_trash
        )
        self.compare = self._button(
            "Compare", "Show the two selected pictures side by side", self.compare_selected
        )
        self.view = self._list_view()
        self._newer_waiting = False  # pictures arrived while the artist was scrolled down
        self.view.verticalScrollBar().valueChanged.connect(self._scrolled)
        self._layout()
        self.list_boards()

    # --- building -------------------------------------------------------------------------------

    def _combo(self, name: str, tip: str) -> QComboBox:
        combo = QComboBox(self)
        combo.setAccessibleName(name)
        combo.setToolTip(tip)
        return combo

    def _button(self, text: str, tip: str, slot: Any) -> QPushButton:
        button = QPushButton(text, self)
        button.setAccessibleName(text.strip("…★✕ "))
        button.setToolTip(tip)
        button.clicked.connect(lambda _checked=False: slot())
        return button

    def _list_view(self) -> QListView:
        view = QListView(self)
        view.setAccessibleName("Library pictures")
        view.setViewMode(QListView.ViewMode.IconMode)
        view.setResizeMode(QListView.ResizeMode.Adjust)
        view.setMovement(QListView.Movement.Static)
        view.setUniformItemSizes(True)
        view.setSpacing(4)
        view.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        view.setItemDelegate(SheetCellDelegate(view))
        view.setModel(self.model)
        view.activated.connect(self._on_activated)
        view.selectionModel().selectionChanged.connect(self._on_selection)
        return view

    def _layout(self) -> None:
        top = QHBoxLayout()
        top.addWidget(self.boards, 1)
        top.addWidget(self.save)
        top.addWidget(self.delete)
        # A tool bar, not a row: where the pane is narrower than its buttons (1366 pixels with
        # both side panes open) the last ones go under its » button, not squeezed unreadable.
        actions = QToolBar("Library actions", self)
        actions.setAccessibleName("Library actions")
        # The ones used most come first; Trash, last, is the first to go under ».
        for widget in (
            self.scope,
            self.star,
            self.reject,
            self.unmark,
            self.compare,
            self.export,
            self.trash,
        ):
            actions.addWidget(widget)
        more = actions.findChild(QToolButton, "qt_toolbar_ext_button")  # "»" when cut
        if more is not None:
            more.setAccessibleName("More library actions")
            more.setToolTip("More library actions")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.search_box)
        layout.addWidget(self.why)
        layout.addWidget(actions)
        layout.addWidget(self.view, 1)
        self._enable()

    # --- searching ------------------------------------------------------------------------------

    def show_library(self) -> None:
        """Read the library again (pictures finished since), keeping the search and the board."""
        self._newer_waiting = False
        self.run_search()

    def pictures_arrived(self) -> None:
        """Pictures finished: shown above the newest when the view is at its top; scrolled
        down, when the artist comes back up (the pictures browsed stay where they are)."""
        if self.view.verticalScrollBar().value() > 0:
            self._newer_waiting = True
            return
        self._newer_waiting = False
        try:
            self.model.add_newer()
        except BatchlineError:  # the ledger busy or gone: the next arrival, or the tab, reads
            self._newer_waiting = True

    @Slot(int)
    def _scrolled(self, value: int) -> None:
        if value == 0 and self._newer_waiting:
            self.pictures_arrived()

    @Slot()
    def run_search(self) -> bool:
        """Show what the search box finds; a query that does not read says why under the box
        and leaves the pictures shown. False then."""
        try:
            self.model.set_query(self.search_box.text())
        except BatchlineError as exc:
            self.why.setText(f"Cannot search: {exc}")
            self.why.show()
            return False
        self.why.hide()
        self._enable()
        return True

    def list_boards(self, current: str | None = None) -> None:
        """The library, then every saved search by name; ``current`` (a name) chosen."""
        with QSignalBlocker(self.boards):
            self.boards.clear()
            self.boards.addItem(ALL_PICTURES, None)
            for saved in saved_searches(self._ledger):
                self.boards.addItem(board_text(saved.name), saved)
                self.boards.setItemData(
                    self.boards.count() - 1, saved.query, Qt.ItemDataRole.ToolTipRole
                )
            found = next(
                (i for i in range(self.boards.count()) if self._board_name(i) == current), 0
            )
            self.boards.setCurrentIndex(found)
        self.delete.setEnabled(self.boards.currentIndex() > 0)

    def _board_name(self, index: int) -> str | None:
        saved = self.boards.itemData(index)
        return saved.name if saved is not None else None

    def choose_board(self, name: str | None) -> None:
        """Show the board ``name`` (None: the whole library)."""
        index = next(i for i in range(self.boards.count()) if self._board_name(i) == name)
        self.boards.setCurrentIndex(index)
        self._on_board(index)

    @Slot(int)
    def _on_board(self, index: int) -> None:
        saved = self.boards.itemData(index)
        self.search_box.setText(saved.query if saved is not None else "")
        self.delete.setEnabled(saved is not None)
        self.run_search()

    def ask_save(self) -> None:
        suggested = self._board_name(self.boards.currentIndex()) or self.search_box.text()
        name = ask_name(self, suggested[:40])
        if name is not None:
            self.save_as(name)

    def save_as(self, name: str) -> bool:
        """Keep the search box's query as the board ``name``; False (and why) when refused."""
        try:
            save_search(self._ledger, name, self.search_box.text())
        except BatchlineError as exc:
            self.why.setText(f"Cannot save the search: {exc}")
            self.why.show()
            return False
        self.list_boards(current=name)
        self.notice.emit(f"Saved the search as the board {name}.")
        return True

    def delete_board(self) -> None:
        name = self._board_name(self.boards.currentIndex())
        if name is None or not confirm(self, "Delete board", f"Forget the board {name}?"):
            return
        try:
            delete_search(self._ledger, name)
        except BatchlineError as exc:
            self.failed.emit(f"Could not delete the board {name}: {exc}")
            return
        self.list_boards()
        self._on_board(0)

    # --- selection ------------------------------------------------------------------------------

    def selected_hits(self) -> list[PictureHit]:
        rows = sorted(index.row() for index in self.view.selectionModel().selectedIndexes())
        found = (self.model.hit_at(row) for row in rows)
        return [hit for hit in found if hit is not None]

    def select_rows(self, rows: list[int]) -> None:
        selection = QItemSelection()
        for row in rows:
            index = self.model.index(row)
            selection.select(index, index)
        flags = self.view.selectionModel().SelectionFlag.ClearAndSelect
        self.view.selectionModel().select(selection, flags)

    @Slot(QItemSelection, QItemSelection)
    def _on_selection(self, _selected: QItemSelection, _deselected: QItemSelection) -> None:
        self._enable()
        jobs = dict.fromkeys(hit.job_id for hit in self.selected_hits())
        self.selection_changed.emit(list(jobs))

    def _enable(self) -> None:
        self.compare.setEnabled(len(self.selected_hits()) == 2)

    @Slot(QModelIndex)
    def _on_activated(self, index: QModelIndex) -> None:
        if self.model.hit_at(index.row()) is not None:
            self.open_requested.emit(self.model.pictures(), index.row())

    def compare_selected(self) -> None:
        hits = self.selected_hits()
        if len(hits) == 2:
            first, second = (Picture(hit.job_id, hit.path) for hit in hits)
            self.compare_requested.emit(first, second)

    # --- acting on many -------------------------------------------------------------------------

    def chosen_hits(self, verb: str) -> list[PictureHit] | None:
        """The pictures an action is for: the selection, or (asked first, with how many) every
        picture the search finds. None: none, or the artist said no."""
        if self.scope.currentText() == SELECTED:
            hits = self.selected_hits()
            if not hits:
                self.notice.emit("Select some pictures first (or act on every picture found).")
                return None
            return hits
        hits = self.all_hits()
        if not hits:
            self.notice.emit("The search finds no pictures.")
            return None
        count = f"{len(hits)} picture" + ("" if len(hits) == 1 else "s")
        found = f" found by {self.search_box.text()!r}" if self.search_box.text() else ""
        if not confirm(self, "Every picture found", f"{verb} the {count}{found}?"):
            return None
        return hits

    def all_hits(self) -> list[PictureHit]:
        """Every picture the search finds (read in pages of the largest size)."""
        hits: list[PictureHit] = []
        while page := page_after(
            self._ledger,
            self.model.query,
            hits[-1].place if hits else None,
            limit=MAX_LIMIT,
            output_dir=self.model.output_dir,
        ):
            hits.extend(page)
        return hits

    def bulk_mark(self, mark: Mark | None) -> None:
        verb = {Mark.star: "Star", Mark.reject: "Reject", None: "Unmark"}[mark]
        hits = self.chosen_hits(verb)
        if hits is None:
            return
        job_ids = list(dict.fromkeys(hit.job_id for hit in hits))
        try:
            self._controller.mark(job_ids, mark)
        except BatchlineError as exc:
            self.failed.emit(f"Could not mark the pictures: {exc}")
            return
        self.model.set_marks(job_ids, mark)
        for job_id in job_ids:
            self.pictures_changed.emit(job_id)
        done = {Mark.star: "Starred", Mark.reject: "Rejected", None: "Unmarked"}[mark]
        self.notice.emit(f"{done} {_count(len(job_ids))}.")

    def ask_export(self) -> None:
        hits = self.chosen_hits("Export")
        if hits is None:
            return
        start = self.model.output_dir or Settings.load(self._ledger).output_folder
        folder = ask_folder(self, start)
        if folder is not None:
            self.export_to(hits, folder)

    def export_to(self, hits: list[PictureHit], folder: Path) -> list[Path]:
        """Copy these pictures to ``folder`` with their parameters text (and a sidecar when
        Settings say)."""
        copies: list[Path] = []
        try:
            sidecar = EXPORT_SIDECAR.get(self._ledger)
            for hit in hits:
                copy, _side = export_picture(
                    self._ledger, Picture(hit.job_id, hit.path), folder, sidecar=sidecar
                )
                copies.append(copy)
        except (OSError, BatchlineError) as exc:
            self.failed.emit(f"Could not export to {folder}: {exc}")
            return copies
        self.notice.emit(f"Copied {_count(len(copies))} to {folder}.")
        return copies

    def ask_trash(self) -> None:
        hits = self.chosen_hits("Move to the trash")
        if hits is None:
            return
        if self.scope.currentText() == SELECTED:
            question = f"Move {_count(len(hits))} to the trash?\nTheir jobs stay in the history."
            if not confirm(self, "Move to trash", question):
                return
        self.trash_pictures(hits)

    def trash_pictures(self, hits: list[PictureHit]) -> tuple[int, list[str]]:
        """Move these pictures to the trash (a starred one stays: its star comes off first);
        how many went, and why each other did not."""
        moved, refused = 0, []
        for hit in hits:
            try:
                trash_picture(self._ledger, hit.job_id, hit.path)
            except BatchlineError as exc:
                refused.append(f"{hit.path.name}: {exc}")
                continue
            moved += 1
            self.pictures_changed.emit(hit.job_id)
        self.model.reload()
        said = f"Moved {_count(moved)} to the trash"
        if refused:
            self.failed.emit(f"{said}; {len(refused)} stayed ({refused[0]}).")
        else:
            self.notice.emit(f"{said}.")
        return moved, refused


def _count(n: int) -> str:
    return f"{n} picture" + ("" if n == 1 else "s")
