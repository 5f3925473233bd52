"""The contact sheet: the chosen batch as pictures, one cell per job, live; its progress line,
marks (1 star, 0 reject), a filter by mark, exports (the starred pictures, a grid sheet), and the
rejected pictures moved to the trash at once. A grid batch with pages (a third axis and more,
the seeds) shows one page at a time, chosen above the grid ([ and ] step through them)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from PySide6.QtCore import (
    QEvent,
    QItemSelection,
    QItemSelectionModel,
    QModelIndex,
    QObject,
    QSize,
    Qt,
    QTimer,
    Signal,
    Slot,
)
from PySide6.QtGui import QAction, QKeySequence, QWheelEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListView,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QStackedWidget,
    QStyle,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from core.batch.batch_title import batch_title
from core.controller.line_now import LineCache
from core.errors import BatchlineError
from core.job_state import JobState
from core.ledger.marks import Mark
from core.ledger.settings import EXPORT_SIDECAR, Settings
from core.pictures import grid_sheet
from core.pictures.picks import export_marked, marked
from core.pictures.trash import Trashed, trash_rejected
from desktop.common.questions import confirm
from desktop.jobs.job_action_scope import plain_text
from desktop.sheet.batch_progress import BatchProgress
from desktop.sheet.contact_sheet_model import ContactSheetModel, MarkFilter
from desktop.sheet.flow_layout import FlowRow
from desktop.sheet.sheet_cell import SheetCellDelegate, cell_size

if TYPE_CHECKING:
    from core.controller.status import ControllerStatus
    from core.ledger import JobRecord, Ledger
    from desktop.common.controller_port import ControllerPort
    from desktop.common.thumbnails import ThumbnailLoader
    from desktop.sheet.sheet_batch import GridLayout

MAX_NAMES_TOLD = 3  # files an export's notice names; more are counted
ESTIMATE_MS = 1000  # places in line and the time left are worked out at most this often
_SPACING = 4
MIN_CELL = 56  # the grid's smallest cell width (the picture's square and its margins)
ROW_HEADER_SHARE = 0.25  # the row header's widest, of the grid view's width; longer ones elide
ZOOM_MIN, ZOOM_MAX, ZOOM_STEP = 25, 400, 25  # the grid's zoom in % of the size that fits
EMPTY_TEXT = (
    "No batch yet. Choose a preset on the left, or drop a ComfyUI workflow (a .json it saved, "
    "or a .png it made) anywhere on this window; set the seeds and press Queue: the pictures "
    "appear here."
)


class SheetKey(NamedTuple):
    """One of the sheet's actions: its text and its keys (the first is the one told)."""

    text: str
    keys: tuple[str, ...]


# The sheet's keys: bound from here and listed from here by Help › Keyboard shortcuts, so the
# two cannot drift apart. The menu's picture actions (Export starred…) are listed with it.
SHEET_KEYS = {
    "star": SheetKey("S&tar", ("1",)),
    "reject": SheetKey("&Reject", ("0",)),
    "next_page": SheetKey("Next page", ("]",)),
    "previous_page": SheetKey("Previous page", ("[",)),
    "zoom_in": SheetKey("Zoom in", ("+", "=")),
    "zoom_out": SheetKey("Zoom out", ("-",)),
}
# The keys the views have of Qt (nothing here binds them), listed with the sheet's own.
SHEET_VIEW_KEYS = (
    ("Enter", "Open the picture in the viewer (or double-click)"),
    ("Arrows, Home, End", "Move between the pictures"),
    ("Shift+arrows, Ctrl+click", "Select several"),
    ("Ctrl+wheel", "Zoom the grid"),
)


class _FillingLayout(QVBoxLayout):
    """The sheet's column. It hides the height-for-width of its wrapping rows (the tools, the
    axes) from the scroll area around the sheet (`main_window._scrolled`): a scroll area holds
    such a widget to its preferred height, the views' whole size, so on a short pane (200 %
    scale) the pane scrolled as well as the grid. Without it the sheet fills the pane and the
    views scroll; the rows still wrap within it."""

    def hasHeightForWidth(self) -> bool:
        return False


class ContactSheetWidget(QWidget):
    """One batch's cells; the batch chooser and progress above them.

    Signals:
        open_requested(str): the artist opened a cell (double-click, Enter): this job.
        selection_changed(list): the job ids now selected in the sheet (by the artist).
        notice(str): something to tell the artist in passing (an export's folder).
        failed(str): something the artist asked for went wrong; why, in one line.
        pictures_changed(str): this job's pictures went to the trash from the sheet.
    """

    open_requested = Signal(str)
    selection_changed = Signal(list)
    notice = Signal(str)
    failed = Signal(str)
    pictures_changed = Signal(str)

    def __init__(
        self,
        ledger: Ledger,
        thumbnails: ThumbnailLoader,
        controller: ControllerPort,
        parent: Any = None,
    ) -> None:
        super().__init__(parent)
        self._ledger = ledger
        self._controller = controller  # marks are its command
        self.model = ContactSheetModel(ledger, thumbnails, self)
        self.model.batch_shown.connect(self._on_batch_shown)
        self._status: ControllerStatus | None = None  # the controller's, for the line
        self._lines = LineCache(ledger)
        self.delegate = SheetCellDelegate(self)
        self.progress = BatchProgress(self)
        self.progress.batch_chosen.connect(self.show_batch)
        self.mark_filter = QComboBox(self)
        self.mark_filter.setAccessibleName("Show pictures")
        self.mark_filter.setToolTip("Show all pictures, or only the starred, rejected or unmarked")
        for choice in MarkFilter:
            self.mark_filter.addItem(choice.value, choice)
        self.mark_filter.currentIndexChanged.connect(self._on_filter)
        self.export_starred = QPushButton("Export &starred…", self)
        self.export_starred.setToolTip("Copy the batch's starred pictures to a folder")
        self.export_starred.clicked.connect(self.ask_export_starred)
        self.trash_rejected = QPushButton("Trash rejected…", self)
        self.trash_rejected.setToolTip(
            "Move the batch's rejected pictures to the trash (their jobs stay in the history)"
        )
        self.trash_rejected.clicked.connect(self.ask_trash_rejected)
        self.export_grid = QPushButton("Export &grid…", self)
        self.export_grid.setToolTip("Write the X/Y grid as one labelled picture")
        self.export_grid.clicked.connect(self.ask_export_grid)
        self.picture_actions = [  # the same for the window's menu, with keys
            self._menu_action(text, keys, button)
            for text, keys, button in (
                ("E&xport starred…", "Ctrl+Shift+X", self.export_starred),
                ("&Trash rejected…", "Ctrl+Shift+D", self.trash_rejected),
                ("Export &grid…", "Ctrl+Shift+G", self.export_grid),
            )
        ]
        self.axes = QLabel(self)
        self.axes.setAccessibleName("Grid axes")
        self.axes.setWordWrap(True)
        self.axes.setTextFormat(Qt.TextFormat.PlainText)  # the workflow's node titles
        self.axes.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.pages = self._page_chooser()
        self.page_row = QWidget(self)
        self.next_page = self._page_action(SHEET_KEYS["next_page"], 1)
        self.previous_page = self._page_action(SHEET_KEYS["previous_page"], -1)
        self.list_view = self._list_view()
        self.grid_view = self._grid_view()
        self.zoom = self._zoom_box()
        self.zoom_in = self._zoom_action(SHEET_KEYS["zoom_in"], ZOOM_STEP)
        self.zoom_out = self._zoom_action(SHEET_KEYS["zoom_out"], -ZOOM_STEP)
        self.grid_view.installEventFilter(self)  # its size: the cells follow it
        self.grid_view.viewport().installEventFilter(self)  # Ctrl+wheel zooms
        self.views = QStackedWidget(self)
        self.views.addWidget(self.list_view)
        self.views.addWidget(self.grid_view)
        self.star = self._mark_action(SHEET_KEYS["star"], Mark.star)
        self.reject = self._mark_action(SHEET_KEYS["reject"], Mark.reject)
        self.empty = QLabel(EMPTY_TEXT, self)
        self.empty.setWordWrap(True)
        self.table_filter = QLabel(self)
        self.table_filter.setAccessibleName("Table filter")
        self.table_filter.setToolTip(TABLE_FILTER_TIP)
        self.table_filter.setWordWrap(True)
        self.table_filter.setTextFormat(Qt.TextFormat.PlainText)  # a batch's name
        self.table_filter.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.table_filter.hide()
        self._layout()
        self._estimate = QTimer(self)
        self._estimate.setSingleShot(True)
        self._estimate.setInterval(ESTIMATE_MS)
        self._estimate.timeout.connect(self.refresh_estimate)
        self._seconds_left: float | None = None
        self._syncing = False
        self._stopped = False
        self.show_batch("")

    # --- building -------------------------------------------------------------------------------

    def _list_view(self) -> QListView:
        view = QListView(self)
        view.setAccessibleName("Contact sheet")
        view.setViewMode(QListView.ViewMode.IconMode)
        view.setResizeMode(QListView.ResizeMode.Adjust)
        view.setMovement(QListView.Movement.Static)
        view.setUniformItemSizes(True)
        view.setSpacing(_SPACING)
        view.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        view.setItemDelegate(self.delegate)
        self._prepare(view)
        return view

    def _grid_view(self) -> QTableView:
        view = QTableView(self)
        view.setAccessibleName("Grid")
        view.setShowGrid(False)
        view.setItemDelegate(self.delegate)
        view.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        view.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        for header in (view.horizontalHeader(), view.verticalHeader()):
            header.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        view.horizontalHeader().setDefaultAlignment(Qt.AlignmentFlag.AlignCenter)
        view.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        for header in (view.horizontalHeader(), view.verticalHeader()):
            header.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # the tooltip has it whole
        self._prepare(view)
        return view

    def _zoom_box(self) -> QSpinBox:
        box = QSpinBox(self)
        box.setAccessibleName("Grid zoom")
        box.setToolTip(
            "The grid's cells, in % of the size that fits every column in the pane "
            "(Ctrl+wheel, + and - too); larger ones scroll"
        )
        box.setRange(ZOOM_MIN, ZOOM_MAX)
        box.setSingleStep(ZOOM_STEP)
        box.setSuffix(" %")
        box.setPrefix("Zoom ")
        box.setValue(100)
        box.valueChanged.connect(lambda _value: self._size_cells())
        return box

    def _zoom_action(self, key: SheetKey, step: int) -> QAction:
        text, keys = key
        action = QAction(text, self)
        action.setShortcuts([QKeySequence(key) for key in keys])
        action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        action.setToolTip(f"{text} on the grid ({keys[0]}, or Ctrl+wheel)")
        action.triggered.connect(lambda: self.zoom_by(step))
        self.addAction(action)
        return action

    def zoom_by(self, step: int) -> None:
        """Make the grid's cells larger (a positive step, in %) or smaller, within bounds."""
        if self.model.grid is not None:
            self.zoom.setValue(self.zoom.value() + step)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        grid_view = self.grid_view
        if watched is grid_view and event.type() == QEvent.Type.Resize:
            self._size_cells()
        elif (
            watched is grid_view.viewport()
            and isinstance(event, QWheelEvent)
            and event.modifiers() & Qt.KeyboardModifier.ControlModifier
        ):
            delta = event.angleDelta().y()
            if delta:
                self.zoom_by(ZOOM_STEP if delta > 0 else -ZOOM_STEP)
            return True
        return False

    def _prepare(self, view: QAbstractItemView) -> None:
        view.setModel(self.model)
        view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        view.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        view.activated.connect(self._on_activated)
        view.selectionModel().selectionChanged.connect(self._on_selection)
        view.setTabKeyNavigation(False)

    def _page_chooser(self) -> QComboBox:
        pages = QComboBox(self)
        pages.setAccessibleName("Grid page")
        pages.setToolTip(
            "Which page of the grid to show: one per value of each further axis, and per seed "
            "when the seeds vary ([ and ] step through them)"
        )
        # As wide as the row, never wider than the pane for a long title (a prompt's value).
        pages.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        pages.setMinimumContentsLength(16)
        pages.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        pages.currentIndexChanged.connect(self._on_page_chosen)
        self.model.page_shown.connect(self._on_page_shown)
        return pages

    def _page_action(self, sheet_key: SheetKey, step: int) -> QAction:
        text, (key, *_others) = sheet_key
        action = QAction(text, self)
        action.setShortcut(QKeySequence(key))
        action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        action.setToolTip(f"Show the grid's {text.lower()} ({key})")
        action.setEnabled(False)
        action.triggered.connect(lambda: self.step_page(step))
        self.addAction(action)
        return action

    def _mark_action(self, sheet_key: SheetKey, mark: Mark) -> QAction:
        text, (key, *_others) = sheet_key
        action = QAction(text, self)
        action.setShortcut(QKeySequence(key))
        action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        action.setToolTip(f"{plain_text(text)} the selected pictures ({key}; again: unmark)")
        action.triggered.connect(lambda: self.toggle_mark(mark))
        return action

    def _layout(self) -> None:
        tools = FlowRow(self)  # wraps where the pane is narrow (200 % scale) rather than clips
        for tool in (
            self.mark_filter,
            self.export_starred,
            self.trash_rejected,
            self.export_grid,
            self.zoom,
        ):
            tools.add(tool)
        layout = _FillingLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.progress)
        layout.addWidget(self.table_filter)
        layout.addWidget(tools)
        layout.addWidget(self.axes)
        page_layout = QHBoxLayout(self.page_row)
        page_layout.setContentsMargins(0, 0, 0, 0)
        label = QLabel("Page", self.page_row)
        label.setBuddy(self.pages)
        page_layout.addWidget(label)
        page_layout.addWidget(self.pages, 1)
        self.page_row.setVisible(False)
        layout.addWidget(self.page_row)
        layout.addWidget(self.views, 1)
        layout.addWidget(self.empty)
        for view in (self.list_view, self.grid_view):
            view.addActions([self.star, self.reject])

    def set_table_filter(self, description: str) -> None:
        """Say that the table's filter is on (``description``: "State = Failed") and that it
        does not filter the pictures; "": no filter, nothing said."""
        self.table_filter.setText(table_filter_text(description))
        self.table_filter.setVisible(bool(description))

    def add_view_actions(self, actions: list[QAction]) -> None:
        """More actions on the selected cells (the context menu), after the marks."""
        for view in (self.list_view, self.grid_view):
            view.addActions(actions)

    # --- the batch ------------------------------------------------------------------------------

    def set_batches(
        self, batch_ids: list[str], names: dict[str, str], current: str | None = None
    ) -> None:
        """The batches to choose from; ``current`` comes into view (a newly queued one)."""
        self.progress.set_batches(batch_ids, names, current)

    def batch_id(self) -> str | None:
        return self.model.batch_id

    @Slot(str)
    def show_batch(self, batch_id: str) -> None:
        """Show this batch ("": none); what was selected in another goes."""
        self.model.load_batch(batch_id or None)
        self.selection_changed.emit(self.selected_job_ids())

    @Slot()
    def _on_batch_shown(self) -> None:
        batch_id = self.model.batch_id
        grid = self.model.grid
        self.views.setCurrentWidget(self.grid_view if grid is not None else self.list_view)
        self.export_grid.setVisible(grid is not None)
        self.export_grid.setEnabled(grid is not None)
        self.zoom.setVisible(grid is not None)
        self.zoom_in.setEnabled(grid is not None)
        self.zoom_out.setEnabled(grid is not None)
        self.export_starred.setEnabled(bool(batch_id))
        self._enable_picture_tools()
        self.axes.setText(_axes_text(grid) if grid is not None else "")
        self.axes.setToolTip(self.axes.text())
        self.axes.setVisible(grid is not None)
        self._show_pages()
        self.empty.setVisible(not batch_id)
        self._size_cells()
        self._seconds_left = None
        self.refresh_estimate()

    def _size_cells(self) -> None:
        size = cell_size(self.fontMetrics().height(), self.model.label_lines())
        self.list_view.setGridSize(size + QSize(2 * _SPACING, 2 * _SPACING))
        view = self.grid_view
        rows = view.verticalHeader()
        rows.setMaximumWidth(max(1, int(view.width() * ROW_HEADER_SHARE)))
        width = self.grid_cell_width(size.width())
        for header, side in (
            (view.horizontalHeader(), width),
            (rows, width + size.height() - size.width()),
        ):
            header.setDefaultSectionSize(side)
            for section in range(header.count()):  # each: the view's scroll bars follow
                header.resizeSection(section, side)

    def grid_cell_width(self, natural: int) -> int:
        """A grid cell's width: what fits every column beside the row header (at most the
        list's own cell, at least `MIN_CELL`), times the zoom; never under `MIN_CELL`."""
        view = self.grid_view
        columns = max(1, self.model.columnCount())
        header = min(view.verticalHeader().sizeHint().width(), view.verticalHeader().maximumWidth())
        bar = view.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent, None, view)
        room = view.width() - 2 * view.frameWidth() - header - bar
        fits = max(MIN_CELL, min(natural, room // columns))
        return max(MIN_CELL, fits * self.zoom.value() // 100)

    def _show_pages(self) -> None:
        """The page chooser: the grid's pages, the shown one current; hidden with one page."""
        titles = self.model.page_titles()
        self.pages.blockSignals(True)
        try:
            self.pages.clear()
            self.pages.addItems(titles)
            self.pages.setCurrentIndex(self.model.page if titles else -1)
        finally:
            self.pages.blockSignals(False)
        several = len(titles) > 1
        self.page_row.setVisible(several)
        self.next_page.setEnabled(several)
        self.previous_page.setEnabled(several)

    def show_page(self, page: int) -> None:
        """Show this page of the grid; the selection goes (its cells are on the page left)."""
        if page == self.model.page:
            return
        self.model.set_page(page)
        self.selection_changed.emit(self.selected_job_ids())

    def step_page(self, step: int) -> None:
        """The next (1) or previous (-1) page of the grid, round from the last to the first."""
        count = len(self.model.page_titles())
        if count > 1:
            self.show_page((self.model.page + step) % count)

    @Slot(int)
    def _on_page_chosen(self, page: int) -> None:
        if page >= 0:
            self.show_page(page)

    @Slot(int)
    def _on_page_shown(self, page: int) -> None:
        if self.pages.currentIndex() != page:
            self.pages.blockSignals(True)
            self.pages.setCurrentIndex(page)
            self.pages.blockSignals(False)

    def current_view(self) -> QAbstractItemView:
        return self.grid_view if self.model.grid is not None else self.list_view

    # --- live -----------------------------------------------------------------------------------

    @Slot(list)
    def update_jobs(self, jobs: list[JobRecord]) -> None:
        """Jobs the feed just read (every job once at start, then each change): the shown
        batch's cells and progress follow, and its places in line soon after."""
        mine = any(job.batch == self.model.batch_id for job in jobs)
        if mine:
            selected = self.selected_job_ids()
            self.model.update_jobs(jobs)
            if self.selected_job_ids() != selected:  # the batch was read again
                self.select_jobs(selected)
            self._enable_picture_tools()  # a rejected job retried, say
            self._show_progress()
        if jobs:
            self._estimate_soon()  # others moved up, or a batch of a higher priority came

    @Slot(str)
    def refresh_job(self, job_id: str) -> None:
        """The job's mark or pictures changed elsewhere (the viewer): show them again."""
        self.model.refresh_job(job_id)
        self._enable_picture_tools()

    def set_status(self, status: ControllerStatus) -> None:
        self.model.set_status(status)
        self._status = status
        self._estimate_soon()  # ComfyUI's queues moved

    def stop(self) -> None:
        """Stop following the ledger (it may be closed next)."""
        self._stopped = True
        self._estimate.stop()
        self.model.stop()

    def _estimate_soon(self) -> None:
        if not self._estimate.isActive() and not self._stopped:
            self._estimate.start()

    @Slot()
    def refresh_estimate(self) -> None:
        """Pending jobs' places in line and the time the batch has left
        (`core.controller.line_now`: the figures of `batchline jobs` and the composer)."""
        if self._stopped:
            return
        jobs = self.model.jobs()
        pending = [job.id for job in jobs if job.state is JobState.pending]
        seconds_left = None
        places: dict[str, int] = {}
        if any(job.state.is_active for job in jobs):
            line = self._lines.read(wanted=pending, status=self._status)
            places = {job_id: place.place for job_id, place in line.places.items()}
            sent = sum(1 for job in jobs if job.state.is_active) - len(pending)
            seconds_left = line.seconds_for(max(places.values(), default=sent))
        self.model.set_line(places)
        self._seconds_left = seconds_left
        self._show_progress()

    def _show_progress(self) -> None:
        self.progress.show_jobs(self.model.counted_jobs(), self._seconds_left)

    # --- selection ------------------------------------------------------------------------------

    def selected_job_ids(self) -> list[str]:
        view = self.current_view()
        indexes = sorted(
            view.selectionModel().selectedIndexes(), key=lambda i: (i.row(), i.column())
        )
        found = (self.model.job_id_at(index) for index in indexes)
        return [job_id for job_id in found if job_id is not None]

    def select_jobs(self, job_ids: list[str]) -> None:
        """Select these jobs' cells (those of the shown batch), and no other; no signal. When
        none is on the grid's page shown, the page of the last one is shown."""
        pages = [self.model.page_of(job_id) for job_id in job_ids]
        there = [page for page in pages if page is not None]
        if there and self.model.page not in there:
            self.model.set_page(there[-1])
        view = self.current_view()
        selection = QItemSelection()
        for job_id in job_ids:
            index = self.model.index_of(job_id)
            if index.isValid():
                selection.select(index, index)
        self._syncing = True
        try:
            flags = QItemSelectionModel.SelectionFlag.ClearAndSelect
            view.selectionModel().select(selection, flags)
            if not selection.isEmpty():
                view.selectionModel().setCurrentIndex(
                    selection.indexes()[-1], QItemSelectionModel.SelectionFlag.NoUpdate
                )
                view.scrollTo(selection.indexes()[-1])
        finally:
            self._syncing = False

    @Slot(QItemSelection, QItemSelection)
    def _on_selection(self, _selected: QItemSelection, _deselected: QItemSelection) -> None:
        if not self._syncing:
            self.selection_changed.emit(self.selected_job_ids())

    @Slot(QModelIndex)
    def _on_activated(self, index: QModelIndex) -> None:
        job_id = self.model.job_id_at(index)
        if job_id is not None:
            self.open_requested.emit(job_id)

    # --- marks and exports ----------------------------------------------------------------------

    def toggle_mark(self, mark: Mark) -> None:
        """Mark the selected cells; when every one has that mark already, unmark them."""
        job_ids = self.selected_job_ids()
        if not job_ids:
            return
        unmark = all(self.model.mark_of(job_id) is mark for job_id in job_ids)
        new = None if unmark else mark
        try:
            self._controller.mark(job_ids, new)
        except BatchlineError as exc:
            self.failed.emit(f"Could not mark the pictures: {exc}")
            return
        self.model.set_marks(job_ids, new)
        self.select_jobs(job_ids)
        self._enable_picture_tools()

    def _enable_picture_tools(self) -> None:
        """Trash rejected… while a rejected picture is there; the menu's entries as their
        buttons."""
        self.trash_rejected.setEnabled(self.model.has_rejected_pictures())
        for action, button in zip(
            self.picture_actions,
            (self.export_starred, self.trash_rejected, self.export_grid),
            strict=True,
        ):
            action.setEnabled(button.isEnabled())

    def _menu_action(self, text: str, keys: str, button: QPushButton) -> QAction:
        """A menu entry doing what ``button`` does, enabled as the button is."""
        action = QAction(text, self)
        action.setShortcut(QKeySequence(keys))
        action.setToolTip(button.toolTip())
        action.setEnabled(False)  # no batch shown yet
        action.triggered.connect(lambda _checked=False: button.click())
        return action

    @Slot(int)
    def _on_filter(self, _index: int) -> None:
        selected = self.selected_job_ids()
        self.model.set_mark_filter(MarkFilter(self.mark_filter.currentData()))
        self.select_jobs(selected)

    def default_folder(self) -> Path:
        """The batch's picture folder (under the window's output folder: the demo's own)."""
        root = self.model.output_dir or Settings.load(self._ledger).output_folder
        return root / (self.model.batch_id or "")

    @Slot()
    def ask_export_starred(self) -> None:
        folder = self._ask_folder("Export the starred pictures to")
        if folder is not None:
            self.export_starred_to(folder)

    @Slot()
    def ask_export_grid(self) -> None:
        folder = self._ask_folder("Write the grid picture to")
        if folder is not None:
            self.export_grid_to(folder)

    def _ask_folder(self, title: str) -> Path | None:
        chosen = QFileDialog.getExistingDirectory(self, title, str(self.default_folder()))
        return Path(chosen) if chosen else None

    def export_starred_to(self, folder: Path) -> list[Path]:
        batch_id = self.model.batch_id
        if batch_id is None:
            return []
        try:
            sidecar = EXPORT_SIDECAR.get(self._ledger)
            copies = export_marked(self._ledger, batch_id, folder, sidecar=sidecar)
        except (OSError, BatchlineError) as exc:
            self.failed.emit(f"Could not export to {folder}: {_why(exc)}")
            return []
        if copies:
            self.notice.emit(f"Copied {len(copies)} starred pictures to {folder}")
        else:
            self.notice.emit("No starred pictures to export: star some with 1.")
        return copies

    @Slot()
    def ask_trash_rejected(self) -> None:
        """Ask once, then move the shown batch's rejected pictures to the trash."""
        batch_id = self.model.batch_id
        if batch_id is None:
            return
        try:
            count = len(marked(self._ledger, batch_id, Mark.reject, self.model.output_dir))
            name = batch_title(self._ledger, self._ledger.batch(batch_id))
        except BatchlineError as exc:
            self.failed.emit(f"Could not read the rejected pictures: {exc}")
            return
        if not count:
            self.notice.emit("No rejected pictures left to move to the trash.")
            self._enable_picture_tools()
            return
        question = (
            f"Move {_the_rejected(count)} of {name} to the trash?\n"
            + ("Its job stays" if count == 1 else "Their jobs stay")
            + " in the history."
        )
        if confirm(self, "Trash rejected pictures", question):
            self.trash_rejected_pictures()

    def trash_rejected_pictures(self) -> Trashed | None:
        """Move the shown batch's rejected pictures to the trash; their cells read "deleted"."""
        batch_id = self.model.batch_id
        if batch_id is None:
            return None
        try:
            result = trash_rejected(self._ledger, batch_id, self.model.output_dir)
        except BatchlineError as exc:
            self.failed.emit(f"Could not move the rejected pictures to the trash: {exc}")
            return None
        for job_id in dict.fromkeys(picture.job_id for picture in result.moved):
            self.model.refresh_job(job_id)
            self.pictures_changed.emit(job_id)
        self._enable_picture_tools()
        moved = f"Moved {len(result.moved)} rejected {_pictures(len(result.moved))} to the trash"
        if result.not_moved:
            first = result.not_moved[0]
            self.failed.emit(
                f"{moved}; {len(result.not_moved)} could not go "
                f"({first.picture.path.name}: {first.why})."
            )
        else:
            self.notice.emit(f"{moved}.")
        return result

    def export_grid_to(self, folder: Path) -> list[Path]:
        batch_id = self.model.batch_id
        if batch_id is None:
            return []
        try:
            written = grid_sheet.export(self._ledger, batch_id, folder)
        except (OSError, BatchlineError) as exc:
            self.failed.emit(f"Could not write the grid to {folder}: {_why(exc)}")
            return []
        if len(written) <= MAX_NAMES_TOLD:
            names = ", ".join(path.name for path in written)
            self.notice.emit(f"Wrote {names} in {folder}")
        else:
            self.notice.emit(
                f"Wrote {len(written)} grid pictures, one per page, in {folder} "
                f"({written[0].name} …)"
            )
        return written


TABLE_FILTER_TIP = (
    "The Table tab's filter hides jobs from the table only. A picture clicked here selects "
    "its job even so: the table shows it among the filtered ones."
)


def table_filter_text(description: str) -> str:
    """ "Table filter on: State = Failed — not applied to these pictures" ("" when off)."""
    if not description:
        return ""
    return f"Table filter on: {description} — not applied to these pictures"


def _axes_text(grid: GridLayout) -> str:
    """→ the columns' axis, ↓ the rows', and what makes the pages."""
    axes = grid.axes
    text = f"→ {axes[0].name}" + (f"   ↓ {axes[1].name}" if len(axes) > 1 else "")
    if len(grid.pages) > 1:
        text += f"   pages: {', '.join(grid.page_names)}"
    return text


def _pictures(count: int) -> str:
    return "picture" if count == 1 else "pictures"


def _the_rejected(count: int) -> str:
    """How the question names them: "the rejected picture", "the 7 rejected pictures"."""
    return "the rejected picture" if count == 1 else f"the {count} rejected pictures"


def _why(exc: Exception) -> str:
    """The reason alone: an OSError's text without its number and the path said already."""
    return (exc.strerror if isinstance(exc, OSError) else None) or str(exc)
