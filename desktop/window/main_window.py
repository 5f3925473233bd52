"""The main window: presets and composer, the batch as pictures or as a table, details, status
bar."""

from __future__ import annotations

import logging
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QItemSelection,
    QItemSelectionModel,
    QModelIndex,
    Qt,
    QTimer,
    Signal,
    Slot,
)
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDragEnterEvent,
    QDragLeaveEvent,
    QDropEvent,
    QGuiApplication,
    QKeySequence,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QLabel,
    QMainWindow,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.batch import shrink_choices
from core.batch.batch_title import batch_title, batch_titles
from core.batch.memory_told import memory_told
from core.errors import BatchlineError, LedgerError
from core.job_state import JobState
from desktop.common.icon import app_icon
from desktop.common.thumbnails import ThumbnailLoader
from desktop.composer.batch_composer import BatchComposerWidget
from desktop.composer.recall import apply_recalled
from desktop.jobs.batch_names import ask_and_name
from desktop.jobs.job_actions import JobActions
from desktop.jobs.job_details import JobDetailsWidget
from desktop.jobs.job_filter_bar import JobFilterBar
from desktop.jobs.job_filter_proxy import JobFilterProxyModel
from desktop.jobs.job_table_model import JOB_ROLE, JobTableModel
from desktop.jobs.job_table_view import JobTableView
from desktop.jobs.queue_again import queue_again
from desktop.jobs.retry_smaller_dialog import RetrySmallerDialog
from desktop.presets.preset_files import is_preset_file
from desktop.presets.presets_panel import PresetsPanel
from desktop.sheet.contact_sheet import ContactSheetWidget
from desktop.sheet.library_view import LibraryWidget
from desktop.viewer.compare_view import CompareView, ledger_captions
from desktop.viewer.viewer import PictureViewer
from desktop.window.drop_overlay import DropOverlay
from desktop.window.notifications import BatchNotifier
from desktop.window.popup_names import install_popup_names
from desktop.window.side_panes import Side, SidePanes
from desktop.window.status_bar import JobStatusBar
from desktop.window.toast import Toast
from desktop.window.window_menus import build_menus

if TYPE_CHECKING:
    from collections.abc import Callable

    from core.controller.status import ControllerStatus
    from core.ledger import Ledger
    from desktop.common.controller_port import ControllerPort

log = logging.getLogger(__name__)
PREFERRED_SIZE = (1500, 880)
CHOSEN_PRESET_KEY = "window_preset"  # the preset chosen last, chosen again at the next start
_SHORT_HEIGHT = 560  # below this window height the toolbar and presets give room to the form
_DETAILS_MIN_WIDTH = 900  # below this window width the details pane starts folded away
_MIDDLE_MIN_WIDTH = 240
_DETAILS_SHARE = 0.23  # of the window's width, for the details pane
_SCROLL_BAR = 24
_DEMO_BADGE = (
    "background: #6f42c1; color: white; font-weight: bold; padding: 4px 10px; border-radius: 10px;"
)


class MainWindow(QMainWindow):
    """Batchline's window over one ledger and one controller.

    Signals:
        connect_real_requested(): in demo mode, the artist asked to use a real ComfyUI.
        settings_requested(): the artist asked for the settings dialog.
        quit_all_requested(): the artist asked to quit Batchline completely (the background
            controller too).

    ``confirm_close``, when set, is asked before the window closes (False keeps it open).
    """

    connect_real_requested = Signal()
    settings_requested = Signal()
    quit_all_requested = Signal()

    def __init__(
        self,
        ledger: Ledger,
        controller: ControllerPort,
        *,
        demo: bool = False,
        output_dir: Path | None = None,
        thumbnail_dir: Path | None = None,
        parent: Any = None,
    ) -> None:
        super().__init__(parent)
        self.ledger = ledger
        self.controller = controller
        self.demo = demo
        self.setWindowTitle("Batchline — Demo server" if demo else "Batchline")
        self.setWindowIcon(app_icon())
        self.setAcceptDrops(True)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            install_popup_names(app)
        self.thumbnails = ThumbnailLoader(thumbnail_dir, self)
        self.model = JobTableModel(ledger, self)
        self.proxy = JobFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self._build_widgets(output_dir)
        self._build_toolbar()
        self._connect()
        self._fit_once_shown = False
        self._initial_load = True  # batches already over at start are not announced
        self.confirm_close: Callable[[], bool] | None = None
        self._syncing_selection = False
        self.viewer: PictureViewer | None = None
        self._notice_error = ""
        controller.add_status_listener(self.show_status)
        self.show_status(controller.status)

    # --- building -------------------------------------------------------------------------------

    def _build_widgets(self, output_dir: Path | None) -> None:
        self.presets = PresetsPanel(self.ledger, self)
        self.composer = BatchComposerWidget(self.ledger, self.controller, self)
        self.filter_bar = JobFilterBar(self.proxy, self)  # the tab order: above the table
        self.table = JobTableView(self)
        self.table.setModel(self.proxy)
        self.table.size_columns()
        self.sheet = ContactSheetWidget(self.ledger, self.thumbnails, self.controller, self)
        self.sheet.model.output_dir = output_dir
        self.sheet.model.waiting_for = self.model.waiting_for  # read per refresh, not per cell
        self.model.waits_changed.connect(self.sheet.model.waits_changed)
        self.library = LibraryWidget(
            self.ledger, self.thumbnails, self.controller, output_dir, self
        )
        self.compare: CompareView | None = None
        self.details = JobDetailsWidget(self.ledger, self.thumbnails, self)
        self.details.output_dir = output_dir
        self.tabs = QTabWidget(self)
        self.tabs.addTab(_scrolled(self.details, "Job details"), "&Details")
        self.tabs.tabBar().setAccessibleName("Side pane tabs")
        self.status = JobStatusBar(self.demo, self)
        self.setStatusBar(self.status)
        self.notifier = BatchNotifier(app_icon(), self.ledger, self)
        self.job_actions = JobActions(
            self.controller, self.table.selected_jobs, self.ledger.count_by_state, self
        )
        self.table.addActions(self.job_actions.all() + self.job_actions.recall_actions())
        self.sheet.add_view_actions(self.job_actions.all() + self.job_actions.recall_actions())
        self.job_actions.choose_smaller = self.ask_smaller
        central = self._layout()
        self.setCentralWidget(central)
        self.banner = Toast(central)
        self.drop_overlay = DropOverlay(central)

    def _layout(self) -> QWidget:
        left = QSplitter(Qt.Orientation.Vertical, self)
        left.addWidget(self.presets)
        left.addWidget(self.composer)
        left.setStretchFactor(1, 3)
        self._left = left
        jobs = QWidget(self)
        column = QVBoxLayout(jobs)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.filter_bar)
        column.addWidget(self.table, 1)
        self.middle = QTabWidget(self)  # the batch as pictures first, the table one click away
        self.middle.setDocumentMode(True)
        self.middle.tabBar().setAccessibleName("Pictures or table")
        self.middle.addTab(_scrolled(self.sheet, "Pictures"), "&Pictures")  # each scrolls
        self.middle.addTab(_scrolled(jobs, "Jobs table"), "T&able")
        self.middle.addTab(self.library, "&Library")  # its cells scroll; read when chosen
        split = QSplitter(Qt.Orientation.Horizontal, self)
        for widget in (_scrolled(left, "Presets and composer"), self.middle, self.tabs):
            split.addWidget(widget)
        split.setStretchFactor(1, 1)
        self._split = split
        self.panes = SidePanes(split, self.ledger, self)
        corner = Qt.Corner.TopLeftCorner
        self.middle.setCornerWidget(self.panes.button(Side.composer, "Composer", self), corner)
        corner = Qt.Corner.TopRightCorner
        self.middle.setCornerWidget(self.panes.button(Side.details, "Details", self), corner)
        # Narrower than its tabs and buttons side by side (its tabs scroll then): on a small
        # screen an opened pane takes from the pictures' room, not from the composer's.
        self.middle.setMinimumWidth(_MIDDLE_MIN_WIDTH)
        central = QWidget(self)
        outer = QVBoxLayout(central)
        outer.addWidget(split, 1)
        return central

    def _build_toolbar(self) -> None:
        toolbar = QToolBar("Actions", self)
        toolbar.setObjectName("actions")
        toolbar.setAccessibleName("Actions toolbar")
        self.addToolBar(toolbar)
        self.toolbar = toolbar
        for action in self.job_actions.all():
            toolbar.addAction(action)
        toolbar.addSeparator()
        self.settings_action = QAction("Se&ttings…", self)
        self.settings_action.setShortcut(QKeySequence("Ctrl+,"))
        self.settings_action.triggered.connect(self.settings_requested)
        toolbar.addAction(self.settings_action)
        self.quit_action = QAction("&Close window", self)
        self.quit_action.setShortcut(QKeySequence("Ctrl+Q"))  # the platform's Quit may be none
        self.quit_action.setToolTip("Close the window; jobs left can go on in the background")
        self.quit_action.triggered.connect(self.close)
        self.addAction(self.quit_action)
        self.quit_all_action = QAction("&Quit Batchline completely", self)
        self.quit_all_action.setShortcut(QKeySequence("Ctrl+Shift+Q"))
        self.quit_all_action.setToolTip("Close the window and stop sending jobs to ComfyUI")
        self.quit_all_action.triggered.connect(self.quit_all_requested)
        self.connect_action = QAction("Connect to a real ComfyUI…", self)
        self.connect_action.setShortcut(QKeySequence("Ctrl+Shift+O"))
        self.connect_action.triggered.connect(self.connect_real_requested)
        self.connect_action.setVisible(self.demo)
        if self.demo:
            self.demo_badge = QLabel("  Demo server  ", self)
            self.demo_badge.setAccessibleName("Demo server: jobs run on the built-in simulator")
            self.demo_badge.setToolTip("Jobs run on Batchline's built-in simulator, not ComfyUI.")
            self.demo_badge.setStyleSheet(_DEMO_BADGE)
            toolbar.addSeparator()
            toolbar.addWidget(self.demo_badge)
            toolbar.addAction(self.connect_action)
        self.menus = build_menus(self)
        self.menuBar().setAccessibleName("Menu bar")
        more = toolbar.findChild(QToolButton, "qt_toolbar_ext_button")  # "»" when cut
        if more is not None:
            more.setAccessibleName("More actions")
            more.setToolTip("More actions")

    def _connect(self) -> None:
        self.presets.preset_selected.connect(self.composer.set_preset)
        self.composer.batch_queued.connect(self.on_batch_queued)
        self.composer.message.connect(self.show_banner)
        self.composer.failed.connect(self.show_error)
        self.presets.failed.connect(self.show_error)
        self.presets.notice.connect(self.show_banner)
        self.table.selectionModel().selectionChanged.connect(self.on_selection)
        self.model.dataChanged.connect(self.on_model_changed)
        self.model.rowsInserted.connect(self.on_rows_inserted)
        self.model.feed_read.connect(self.on_feed_read)
        self.model.loaded.connect(self.on_loaded)
        self.notifier.banner.connect(self.show_banner)
        self.job_actions.failed.connect(self.show_error)
        self.job_actions.retried_as.connect(self.on_retried_as)
        self.job_actions.recall_requested.connect(self.on_recall)
        self.job_actions.again_requested.connect(self.queue_again)
        self.sheet.selection_changed.connect(self.on_sheet_selection)
        self.sheet.model.batch_shown.connect(
            lambda: self.table.set_shown_batch(self.sheet.batch_id())
        )
        self.filter_bar.described.connect(self.sheet.set_table_filter)
        self.sheet.open_requested.connect(self.open_viewer)
        self.sheet.notice.connect(self.show_banner)
        self.sheet.failed.connect(self.show_error)
        self.sheet.pictures_changed.connect(self.on_pictures_changed)
        self.table.activated.connect(self.on_job_activated)
        self.middle.currentChanged.connect(self.on_middle_tab)
        self.library.open_requested.connect(self.open_library_viewer)
        self.library.compare_requested.connect(self.open_compare)
        self.library.notice.connect(self.show_banner)
        self.library.failed.connect(self.show_error)
        self.library.pictures_changed.connect(self.sheet.refresh_job)
        self.library.pictures_changed.connect(self.on_pictures_changed)
        self.library.selection_changed.connect(self.on_sheet_selection)
        self.presets.values_recalled.connect(partial(apply_recalled, self.composer))
        self.composer.memory.edited_changed.connect(self.presets.model.set_edited)
        self._batches_timer = QTimer(self)
        self._batches_timer.setSingleShot(True)
        self._batches_timer.setInterval(300)
        self._batches_timer.timeout.connect(self.refresh_batches)

    # --- life -----------------------------------------------------------------------------------

    def fit_to_screen(self, width: int | None = None, height: int | None = None) -> None:
        """All the room the screen offers (its available area, less the frame), or width x
        height when given and smaller, placed on it: the pictures get what there is. A
        1366x768 laptop shows it whole, at 200 % scale too (683x384 logical pixels: the panes
        scroll, the details pane folds to its button)."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        room = screen.availableGeometry() if screen is not None else None
        if room is None or not room.isValid():
            self._share_room(width or PREFERRED_SIZE[0], height or PREFERRED_SIZE[1])
            return
        decoration = self.frameGeometry().size() - self.size()  # known once shown
        most = (room.width() - decoration.width(), room.height() - decoration.height())
        self._share_room(min(width or most[0], most[0]), min(height or most[1], most[1]))
        self._fit_once_shown = not self.isVisible()  # the frame is known once shown
        frame = self.frameGeometry()
        frame.moveCenter(room.center())
        self.move(max(frame.left(), room.left()), max(frame.top(), room.top()))

    def _share_room(self, width: int, height: int) -> None:
        """Resize to width x height and share it: the composer its whole width when it can,
        the presets list the least of the height; on a short screen the toolbar is hidden
        (the menus carry its actions; View shows it again) and the presets list is two rows, so
        that the Queue button stays in sight and the composer's form keeps some room. On a
        narrow screen the details pane starts folded to its button (View > Details opens
        it), so that the pictures and the table keep room. A pane the artist folded or
        widened last time is so again."""
        self.resize(width, height)
        short = height < _SHORT_HEIGHT
        self.toolbar.setVisible(not short)
        self.presets.make_compact(short)
        left = max(self.composer.minimumSizeHint().width() + _SCROLL_BAR, round(width * 0.3))
        tabs = round(width * _DETAILS_SHARE) if width >= _DETAILS_MIN_WIDTH else 0
        self.panes.lay_out([left, max(width - left - tabs, 0), tabs])
        self._left.setSizes([self.presets.minimumSizeHint().height(), height])

    def start(self) -> None:
        """Start following the ledger (the first chunk is read at once), on the preset chosen
        last (a restart after Settings keeps it, its composer as the artist left it)."""
        self.model.refresh()
        self.model.start()
        self.notifier.start()
        last = self.ledger.settings.get(CHOSEN_PRESET_KEY)
        if isinstance(last, str) and self.presets.model.row_of(last) >= 0:
            self.presets.select(last)
        elif self.presets.model.rowCount():
            self.presets.select(self.presets.model.data(self.presets.model.index(0)))
        self.presets.preset_selected.connect(self._remember_preset)

    @Slot(str)
    def _remember_preset(self, name: str) -> None:
        try:
            self.ledger.settings.set(CHOSEN_PRESET_KEY, name)
        except LedgerError as exc:  # the data folder gone under the window (the status says)
            log.info("the chosen preset is not kept: %s", exc)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._fit_once_shown:
            self._fit_once_shown = False
            screen = self.screen()
            if screen is not None and not screen.availableGeometry().contains(self.frameGeometry()):
                self.fit_to_screen(self.width(), self.height())

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.confirm_close is not None and not self.confirm_close():
            event.ignore()
            return
        self.panes.save()
        self._batches_timer.stop()
        self.banner.dismiss()
        self.presets.stop()
        self.model.stop()
        self.notifier.stop()
        self.sheet.stop()
        if self.compare is not None:
            self.compare.close()
        if self.viewer is not None:
            self.viewer.close()
            self.viewer.shutdown()
        self.thumbnails.shutdown()
        super().closeEvent(event)

    # --- drops ----------------------------------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        paths = _preset_paths(event.mimeData().urls() if event.mimeData().hasUrls() else [])
        if paths:
            event.acceptProposedAction()
            names = paths[0].name if len(paths) == 1 else f"{len(paths)} workflows"
            self.drop_overlay.show_for(f"Drop to add {names} as a preset")
        else:
            event.ignore()

    def dragLeaveEvent(self, event: QDragLeaveEvent) -> None:
        self.drop_overlay.hide()
        super().dragLeaveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        self.drop_overlay.hide()
        paths = _preset_paths(event.mimeData().urls())
        if paths:
            self.presets.add_files(paths)
            event.acceptProposedAction()

    # --- slots ----------------------------------------------------------------------------------

    def show_status(self, status: ControllerStatus) -> None:
        if status.notice_error and status.notice_error != self._notice_error:
            self.show_banner(status.notice_error)  # once a spell, not once a try
        self._notice_error = status.notice_error
        self.model.set_status(status)
        self.status.show_status(status)
        self.job_actions.show_status(status)
        self.details.show_previews(status.previews)
        self.sheet.set_status(status)

    @Slot(str, int)
    def on_batch_queued(self, batch_id: str, _count: int) -> None:
        self.model.refresh()
        self.refresh_batches(batch_id)

    @Slot(list)
    def on_feed_read(self, jobs: list[Any]) -> None:
        self.job_actions.update_enabled()  # the batches' counts in the actions' texts
        self.sheet.update_jobs(jobs)
        shown = self.middle.currentWidget() is self.library  # else read when it is chosen
        if shown and any(job.state is JobState.succeeded for job in jobs):
            self.library.pictures_arrived()
        if self._initial_load:
            self.notifier.seed(jobs)
        else:
            self.notifier.observe(jobs)

    @Slot()
    def on_loaded(self) -> None:
        self._initial_load = False

    @Slot(str)
    def on_retried_as(self, job_id: str) -> None:
        self.show_banner(f"Queued a smaller retry as {job_id}.")
        self.model.refresh()

    @Slot(str, bool)
    def on_recall(self, job_id: str, seed_only: bool) -> None:
        if self.presets.recall_job(job_id, seed_only=seed_only) is not None:
            self.focus_composer()

    @Slot(int)
    def on_middle_tab(self, index: int) -> None:
        """The library is read when its tab is chosen (and again each time: pictures since)."""
        if self.middle.widget(index) is self.library:
            self.library.show_library()

    def show_library(self) -> None:
        self.middle.setCurrentWidget(self.library)

    @Slot(list, int)
    def open_library_viewer(self, pictures: list[Any], index: int) -> None:
        """Show the library's pictures in the viewer, from the ``index``-th, in its order."""
        viewer = self._the_viewer()
        if viewer.open_pictures(pictures, index):
            viewer.show()
            viewer.raise_()
            viewer.activateWindow()

    @Slot(object, object)
    def open_compare(self, first: Any, second: Any) -> CompareView:
        """Two pictures side by side, zoom and pan in step."""
        if self.compare is not None:
            self.compare.close()
            self.compare.deleteLater()
        self.compare = CompareView(first, [second], 0, self, ledger_captions(self.ledger))
        self.compare.show()
        return self.compare

    def _the_viewer(self) -> PictureViewer:
        if self.viewer is None:
            self.viewer = PictureViewer(self.ledger, self.controller, self.details.output_dir, self)
            self.viewer.recall_requested.connect(self.recall_from_viewer)
            self.viewer.queued.connect(self.on_batch_queued)
            self.viewer.changed.connect(self.sheet.refresh_job)
            self.viewer.changed.connect(self.on_pictures_changed)
            self.viewer.fit_to_screen()
        return self.viewer

    @Slot(str)
    def open_viewer(self, job_id: str) -> None:
        """Show the job's picture in the viewer (one window, reused), among its batch's."""
        self._the_viewer()
        assert self.viewer is not None
        if not self.viewer.open_job(job_id):
            self.show_banner(f"{job_id} has no pictures to show.")
            return
        self.viewer.show()
        self.viewer.raise_()
        self.viewer.activateWindow()

    @Slot(str)
    def queue_again(self, job_id: str) -> None:
        """Queue the job again with its seed and values, in a new batch; say what was queued."""
        text, batch_id = queue_again(self.controller, job_id)
        if batch_id is None:
            self.show_error(text)
            return
        self.show_banner(text)
        self.on_batch_queued(batch_id, 1)

    @Slot(str, bool)
    def recall_from_viewer(self, job_id: str, seed_only: bool) -> None:
        self.on_recall(job_id, seed_only)
        self.raise_()
        self.activateWindow()

    @Slot(QModelIndex)
    def on_job_activated(self, index: QModelIndex) -> None:
        job = index.data(JOB_ROLE)
        if job is not None:
            self.open_viewer(job.id)

    @Slot(QItemSelection, QItemSelection)
    def on_selection(self, _selected: QItemSelection, _deselected: QItemSelection) -> None:
        self.job_actions.update_enabled()
        jobs = self.table.selected_jobs()
        self.details.show_job(jobs[-1] if jobs else None)
        if self._syncing_selection:
            return
        self._syncing_selection = True
        try:
            if jobs and jobs[-1].batch != self.sheet.batch_id():
                self.refresh_batches(jobs[-1].batch)
            self.sheet.select_jobs([job.id for job in jobs])
        finally:
            self._syncing_selection = False

    @Slot(list)
    def on_sheet_selection(self, job_ids: list[str]) -> None:
        """The cells chosen in the sheet are the rows selected in the table: the actions act on
        them; the table's filter lets them through (shows them among its own)."""
        if self._syncing_selection:
            return
        self.proxy.let_through(job_ids)
        selection = QItemSelection()
        for job_id in job_ids:
            row = self.model.row_of(job_id)
            index = self.proxy.mapFromSource(self.model.index(row, 0)) if row is not None else None
            if index is not None and index.isValid():
                selection.select(index, index)
        flags = QItemSelectionModel.SelectionFlag.ClearAndSelect
        self._syncing_selection = True
        try:
            self.table.selectionModel().select(
                selection, flags | QItemSelectionModel.SelectionFlag.Rows
            )
        finally:
            self._syncing_selection = False

    @Slot(str)
    def on_pictures_changed(self, job_id: str) -> None:
        """A job's mark or pictures changed (the viewer, the sheet's trash): the details show
        them again when they show that job."""
        if self.details.job_id() == job_id:
            self.details.refresh()

    @Slot(QModelIndex, QModelIndex, list)
    def on_model_changed(self, top: QModelIndex, bottom: QModelIndex, _roles: list[int]) -> None:
        job_id = self.details.job_id()
        row = self.model.row_of(job_id) if job_id else None
        whole = top.column() == 0 and bottom.column() == self.model.columnCount() - 1  # the feed
        if row is not None and top.row() <= row <= bottom.row() and whole:
            self.details.show_job(self.model.job_at(row))
            self.job_actions.update_enabled()

    @Slot(QModelIndex, int, int)
    def on_rows_inserted(self, _parent: QModelIndex, _first: int, _last: int) -> None:
        if not self._batches_timer.isActive():
            self._batches_timer.start()

    @Slot()
    def refresh_batches(self, current: str | None = None) -> None:
        """The batches to filter on and to show as pictures (``current``: show this one)."""
        batches = self.model.batch_ids()
        names = batch_titles(self.ledger)  # the artist's names, else preset and what varies
        self.model.set_batch_names(names)
        self.filter_bar.set_batches(batches, names)
        self.sheet.set_batches(batches, names, current)

    def _batch_title(self, batch_id: str) -> str:
        """What a notice calls a batch: the artist's name, else its preset and what varies."""
        return batch_title(self.ledger, self.ledger.batch(batch_id))

    @Slot(str)
    def show_banner(self, text: str) -> None:
        """A notice over the window's bottom for a while; nothing moves."""
        self.banner.show_message(text)

    @Slot(str)
    def show_error(self, text: str) -> None:
        self.banner.show_message(text, error=True)

    def ask_smaller(self, job_id: str) -> tuple[float, list[str] | None] | None:
        """What to shrink for a smaller retry and by how much (None: the artist cancelled)."""
        try:
            choices = shrink_choices(self.ledger, job_id)
            memory = memory_told(self.ledger, job_id)
        except BatchlineError as exc:
            self.show_error(str(exc))
            return None
        dialog = RetrySmallerDialog(job_id, choices, self, memory)
        try:
            if dialog.exec() != RetrySmallerDialog.DialogCode.Accepted:
                return None
            return dialog.factor(), dialog.shrink()
        finally:
            dialog.deleteLater()

    @Slot()
    def name_batch(self) -> None:
        """Name the selected job's batch, or the batch the table is filtered on."""
        jobs = self.table.selected_jobs()
        batch_id = jobs[-1].batch if jobs else self.filter_bar.batch.currentData()
        if not batch_id:
            self.show_error("Select a job, or a batch in the filter, to name its batch.")
            return
        error = ask_and_name(self, self.ledger, self.controller, batch_id)
        if error:
            self.show_error(error)
        self.refresh_batches()
        self.details.refresh()  # its summary names the batch

    @Slot()
    def select_all_jobs(self) -> None:
        self.table.setFocus()
        self.table.selectAll()

    @Slot()
    def focus_filter(self) -> None:
        self.filter_bar.states.setFocus()

    @Slot()
    def focus_composer(self) -> None:
        stops = [w for w in tab_stops(self) if self.composer.isAncestorOf(w)]
        if stops:
            stops[0].setFocus(Qt.FocusReason.ShortcutFocusReason)

    def show_pictures(self) -> None:
        self.middle.setCurrentIndex(0)
        self.sheet.current_view().setFocus()

    def show_table(self) -> None:
        self.middle.setCurrentIndex(1)
        self.table.setFocus()

    def show_tab(self, index: int) -> None:
        self.panes.set_open(Side.details, True)  # when folded away: from the middle's room
        self.tabs.setCurrentIndex(index)
        self.tabs.currentWidget().setFocus()

    def select_job(self, job_id: str) -> None:
        """Select the job's row (scripts and tests)."""
        for row in range(self.proxy.rowCount()):
            index = self.proxy.index(row, 0)
            if index.data(JOB_ROLE).id == job_id:
                self.table.selectRow(row)
                return


def tab_stops(window: QWidget) -> list[QWidget]:
    """The widgets Tab visits, in order, from the window's first."""
    stops: list[QWidget] = []
    widget = window.nextInFocusChain()
    while widget is not None and widget is not window:
        if (
            widget.isVisible()
            and widget.isEnabled()
            and widget.focusPolicy() & (Qt.FocusPolicy.TabFocus)
        ):
            stops.append(widget)
        widget = widget.nextInFocusChain()
    return stops


def _scrolled(pane: QWidget, name: str = "") -> QScrollArea:
    """The pane in a frameless scroll area named ``name``: it shrinks below its own minimum on
    a small screen and scrolls instead of pushing the window past the screen's edge."""
    area = QScrollArea(pane.parentWidget())
    area.setAccessibleName(name)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidget(pane)
    return area


def _preset_paths(urls: list[Any]) -> list[Path]:
    paths = [Path(url.toLocalFile()) for url in urls if url.isLocalFile()]
    return [path for path in paths if is_preset_file(path)]
