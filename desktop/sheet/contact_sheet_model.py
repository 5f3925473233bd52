"""The contact sheet's model: one cell per job of one batch, live.

A plain batch is one column of cells in the sheet's order (`core.pictures.sheet_order`; a
list view lays them out in rows); a grid batch is a table whose columns follow the first axis
and whose rows follow the second, its axis values in the headers, one page at a time (a page
per value of each further axis, and per seed when the seeds vary: ``set_page``). Jobs come
from the jobs table's feed (``update_jobs``), queue places, progress and previews from the
controller's status (``set_status``); ``data()`` never queries the ledger, and a thumbnail is
asked for only when its cell is painted.
"""

from __future__ import annotations

import logging
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
    Slot,
)
from PySide6.QtGui import QImage, QPixmap, QPixmapCache

from core.controller.placing_said import NO_SERVER_SHORT, waiting_text
from core.errors import BatchlineError
from core.job_state import JobState
from core.ledger.marks import Mark
from core.reason_texts import reason_text
from desktop.common.off_thread import OffThread
from desktop.common.preview_reader import PreviewReader
from desktop.sheet.sheet_batch import BatchView, read_batch

if TYPE_CHECKING:
    from collections.abc import Callable

    from core.controller.status import ControllerStatus
    from core.ledger import JobRecord, Ledger
    from desktop.common.thumbnails import ThumbnailLoader
    from desktop.sheet.sheet_batch import GridLayout

    AnyIndex = QModelIndex | QPersistentModelIndex

JOB_ROLE = Qt.ItemDataRole.UserRole
PICTURE_ROLE = Qt.ItemDataRole.UserRole + 1  # QPixmap: the live preview, or the thumbnail
STATUS_ROLE = Qt.ItemDataRole.UserRole + 2  # (text, kind): what the cell says without a picture
PROGRESS_ROLE = Qt.ItemDataRole.UserRole + 3  # 0..1 while running, -1.0 running unknown
MARK_ROLE = Qt.ItemDataRole.UserRole + 4  # Mark or None
SHOWN_ROLE = Qt.ItemDataRole.UserRole + 5  # False: the mark filter leaves it out (grid only)
PATH_ROLE = Qt.ItemDataRole.UserRole + 6  # the first picture's path, or None
LABEL_LINES_ROLE = Qt.ItemDataRole.UserRole + 7  # lines a label has: a list's 2, a grid's 1
LIST_LABEL_LINES = 2  # a long label (a random 64-bit seed) on two lines, not cut

log = logging.getLogger(__name__)
PIXMAP_CACHE_KB = 96 * 1024  # a screenful of thumbnails many times over
_MARK_WORDS: dict[Mark | None, str] = {Mark.star: "starred", Mark.reject: "rejected"}
READ_AT_ONCE = 2000  # jobs: a batch up to this size is read on the GUI thread (~50 ms)


class MarkFilter(StrEnum):
    all = "All pictures"
    starred = "Starred"
    rejected = "Rejected"
    unmarked = "Unmarked"

    def admits(self, mark: Mark | None) -> bool:
        match self:
            case MarkFilter.all:
                return True
            case MarkFilter.starred:
                return mark is Mark.star
            case MarkFilter.rejected:
                return mark is Mark.reject
            case MarkFilter.unmarked:
                return mark is None


class ContactSheetModel(QAbstractTableModel):
    """The cells of one batch: each job's label (what varies), state, picture and mark.

    Signals:
        batch_shown(): the chosen batch is shown (read): its grid, if any, is known.
        page_shown(int): the grid shows this page now (another than before).
    """

    batch_shown = Signal()
    page_shown = Signal(int)

    def __init__(self, ledger: Ledger, thumbnails: ThumbnailLoader, parent: Any = None) -> None:
        super().__init__(parent)
        self._ledger = ledger
        self._thumbnails = thumbnails
        self.output_dir: Path | None = None
        self.batch_id: str | None = None
        self._view = BatchView()
        self._shown: list[str] = []  # the jobs the mark filter admits (plain batches)
        self._rows: dict[str, int] = {}
        self._cells: dict[tuple[int, int], str] = {}
        self._jobs_of_picture: dict[str, str] = {}
        self._filter = MarkFilter.all
        self._page = 0  # the grid's page shown
        self._page_title: tuple[str | None, str] = (None, "")  # (batch, title): kept on a read
        self._positions: dict[str, int] = {}
        self._progress: dict[str, float] = {}
        self._preview_counts: dict[str, int] = {}
        self._previews: dict[str, QPixmap] = {}
        self._line: dict[str, int] = {}
        # Why a pending job waits when no server can run it (the jobs table's, read per
        # refresh: the window sets it); "" when it does not.
        self.waiting_for: Callable[[str], str] = _no_wait
        self._generation = 0  # of the batch chosen last: a read for an older one is dropped
        self._waiting: list[JobRecord] | None = None  # the feed's changes during a read
        self._reader = OffThread("sheet-batch", 1, parent=self)  # done: generation, BatchView
        self._reader.done.connect(self._on_batch_read)
        QPixmapCache.setCacheLimit(max(QPixmapCache.cacheLimit(), PIXMAP_CACHE_KB))
        thumbnails.ready.connect(self.thumbnail_ready)
        self._preview_reader = PreviewReader(ledger.folder, self)
        self._preview_reader.ready.connect(self.preview_ready)

    # --- the batch ------------------------------------------------------------------------------

    def load_batch(self, batch_id: str | None) -> None:
        """Show this batch's jobs (None: none). A small batch is read at once; a big one in a
        worker thread (the sheet is empty meanwhile; the feed's changes wait for it)."""
        self._generation += 1
        if batch_id is None:
            self._show(BatchView())
            return
        size = sum(self._ledger.count_by_state(batch=batch_id).values())
        if size <= READ_AT_ONCE:
            self._show(read_batch(self._ledger, batch_id, self.output_dir))
            return
        self._show(BatchView(batch_id))
        self._waiting = []
        self._reader.submit(self._generation, self._read, batch_id)

    def _read(self, batch_id: str) -> BatchView | None:
        """In the worker thread."""
        try:
            with self._ledger.thread_connection():
                return read_batch(self._ledger, batch_id, self.output_dir)
        except BatchlineError as exc:  # the ledger was closed meanwhile, say
            log.info("batch %s not read: %s", batch_id, exc)
            return None

    @Slot(object, object)
    def _on_batch_read(self, generation: int, view: BatchView | None) -> None:
        if view is None or generation != self._generation:
            return  # not read, or another batch was chosen meanwhile
        waiting, self._waiting = self._waiting, None
        self._show(view)
        if waiting:
            self.update_jobs(waiting)

    def _show(self, view: BatchView) -> None:
        self.beginResetModel()
        self.batch_id = view.batch_id
        self._view = view
        self._jobs_of_picture = {p: job for job, p in view.pictures.items() if p}
        for job_id in self._preview_counts:
            self._preview_reader.forget(job_id)
        self._previews.clear()
        self._preview_counts.clear()
        self._page = self._page_kept(view)
        self._lay_out()
        self.endResetModel()
        self.batch_shown.emit()

    def _page_kept(self, view: BatchView) -> int:
        """The page to show of this view: the one shown before when it is the same batch's
        (read again: jobs added), or the first of its values and more (the seeds make pages
        since), else the first."""
        if view.grid is None:
            return 0
        batch, title = self._page_title
        pages = view.grid.pages
        page = 0
        if batch == view.batch_id and title in pages:
            page = pages.index(title)
        elif batch == view.batch_id and title:
            page = next((n for n, t in enumerate(pages) if t.startswith(f"{title}, ")), 0)
        self._page_title = (view.batch_id, pages[page])
        return page

    def stop(self) -> None:
        """Read no more (the ledger may be closed next)."""
        self._generation += 1
        self._reader.shutdown()

    def _lay_out(self) -> None:
        """Which job each cell shows, after the mark filter (a grid keeps its places: the cells
        it leaves out are dimmed)."""
        if self._view.grid is None:
            marks = self._view.marks
            self._shown = [job for job in self._view.order if self._filter.admits(marks.get(job))]
            self._rows = {job: row for row, job in enumerate(self._shown)}
            self._cells = {}
        else:
            self._shown = []
            self._rows = {}
            places = self._view.grid.on_page(self._page)
            self._cells = {place: job for job, place in places.items()}

    def _lay_out_again(self) -> None:
        """A plain batch's cells after its marks or the filter changed."""
        self.beginResetModel()
        self._lay_out()
        self.endResetModel()

    @property
    def grid(self) -> GridLayout | None:
        return self._view.grid

    @property
    def page(self) -> int:
        """The grid's page shown (0 for a plain batch)."""
        return self._page

    def page_titles(self) -> list[str]:
        """The grid's pages, each titled by its values ([] for a plain batch)."""
        return list(self._view.grid.pages) if self._view.grid is not None else []

    def page_of(self, job_id: str) -> int | None:
        """The grid page this job is on; None when it is on none (or not a grid)."""
        return self._view.grid.page_of.get(job_id) if self._view.grid is not None else None

    def set_page(self, page: int) -> None:
        """Show this page of the grid (nothing for a plain batch or a page it has not)."""
        grid = self._view.grid
        if grid is None or page == self._page or not 0 <= page < len(grid.pages):
            return
        self.beginResetModel()
        self._page = page
        self._page_title = (self.batch_id, grid.pages[page])
        self._lay_out()
        self.endResetModel()
        self.page_shown.emit(page)

    def set_mark_filter(self, mark_filter: MarkFilter) -> None:
        if mark_filter == self._filter:
            return
        self._filter = mark_filter
        if self._view.grid is None:
            self._lay_out_again()
        else:
            self._changed(list(self._view.jobs))

    # --- live changes ---------------------------------------------------------------------------

    @Slot(list)
    def update_jobs(self, jobs: list[JobRecord]) -> None:
        """Jobs the feed just read (any batch): this batch's cells follow them."""
        mine = [job for job in jobs if job.batch == self.batch_id]
        if not mine:
            return
        if self._waiting is not None:  # being read: after it
            self._waiting.extend(mine)
            return
        if any(job.id not in self._view.jobs for job in mine):
            self.load_batch(self.batch_id)  # jobs added to the batch: rare
            return
        newly_done = [
            job.id
            for job in mine
            if job.state is JobState.succeeded and job.id not in self._view.pictures
        ]
        for job in mine:
            self._view.jobs[job.id] = job
            self._view.errors.pop(job.id, None)
            if job.state is not JobState.succeeded:
                self._view.pictures.pop(job.id, None)  # retried: its new picture comes later
        self._view.read_pictures(self._ledger, newly_done, self.output_dir)
        self._view.read_errors(self._ledger, [j for j in mine if j.state is JobState.failed])
        for job_id in newly_done:
            picture = self._view.pictures.get(job_id)
            if picture:
                self._jobs_of_picture[picture] = job_id
        self._changed([job.id for job in mine])

    def set_status(self, status: ControllerStatus) -> None:
        """Queue places, progress and the newest previews from a controller snapshot."""
        touched = set(self._positions) | set(self._progress) | set(self._preview_counts)
        self._positions = {j: p for j, p in status.positions.items() if j in self._view.jobs}
        self._progress = {j: p.fraction for j, p in status.progress.items() if j in self._view.jobs}
        counts = {j: n for j, n in status.previews.items() if j in self._view.jobs}
        for job_id, count in counts.items():
            self._preview_reader.request(job_id, count)
        for job_id in [j for j in self._preview_counts if j not in counts]:
            self._previews.pop(job_id, None)
            del self._preview_counts[job_id]
            self._preview_reader.forget(job_id)
        self._preview_counts.update(counts)
        touched |= set(self._positions) | set(self._progress) | set(counts)
        self._changed(sorted(touched))

    @Slot(str, int, QImage)
    def preview_ready(self, job_id: str, count: int, image: QImage) -> None:
        """A running job's preview, read off the GUI thread: shown unless a newer is asked."""
        if self._preview_counts.get(job_id) == count:
            self._previews[job_id] = QPixmap.fromImage(image)
            self._changed([job_id])

    def set_line(self, places: dict[str, int]) -> None:
        """Pending jobs' places in line (`core.controller.line_now`: every prompt done before
        them, ComfyUI's queues first, plus one)."""
        touched = set(self._line) ^ set(places) | {
            j for j, n in places.items() if self._line.get(j) != n
        }
        self._line = {j: n for j, n in places.items() if j in self._view.jobs}
        self._changed(sorted(touched))

    @Slot()
    def waits_changed(self) -> None:
        """The servers changed: every pending cell says again why it waits, or stops."""
        self._changed([j for j, job in self._view.jobs.items() if job.state is JobState.pending])

    def refresh_job(self, job_id: str) -> None:
        """Read the job's mark again, and whether its picture is still there (another window
        marked it, or moved it to the trash)."""
        if job_id not in self._view.jobs:
            return
        mark = self._ledger.marks.of([job_id]).get(job_id)
        picture = self._view.pictures.get(job_id)
        if picture is not None and not Path(picture).is_file():
            self._view.pictures[job_id] = None
            self._view.deleted.add(job_id)
        self.set_marks([job_id], mark)

    def set_marks(self, job_ids: list[str], mark: Mark | None) -> None:
        for job_id in job_ids:
            if mark is None:
                self._view.marks.pop(job_id, None)
            else:
                self._view.marks[job_id] = mark
        if self._view.grid is None and self._filter is not MarkFilter.all:
            self._lay_out_again()
        else:
            self._changed(job_ids)

    @Slot(str, str)
    def thumbnail_ready(self, source: str, _thumb: str) -> None:
        job_id = self._jobs_of_picture.get(source)
        if job_id is not None:
            self._changed([job_id])

    def _changed(self, job_ids: list[str]) -> None:
        for job_id in job_ids:
            index = self.index_of(job_id)
            if index.isValid():
                self.dataChanged.emit(index, index)

    # --- lookups --------------------------------------------------------------------------------

    def jobs(self) -> list[JobRecord]:
        """The batch's jobs in the sheet's order (every one, whatever the filter)."""
        return [self._view.jobs[job_id] for job_id in self._view.order]

    def counted_jobs(self) -> list[JobRecord]:
        """The jobs the batch's progress counts: each as queued, by its latest "Retry
        smaller" copy when it has one."""
        return self._view.counted()

    def label_lines(self) -> int:
        """The lines a cell's label has: a list's two, a grid's one (its edges say the values;
        a cell says little more)."""
        return LIST_LABEL_LINES if self._view.grid is None else 1

    def mark_of(self, job_id: str) -> Mark | None:
        return self._view.marks.get(job_id)

    def has_rejected_pictures(self) -> bool:
        """Whether a rejected job's picture is still there, as last read (no file is looked at)."""
        pictures = self._view.pictures
        return any(pictures.get(j) for j, mark in self._view.marks.items() if mark is Mark.reject)

    def job_id_at(self, index: AnyIndex) -> str | None:
        if not index.isValid():
            return None
        if self._view.grid is None:
            row = index.row()
            return self._shown[row] if 0 <= row < len(self._shown) else None
        return self._cells.get((index.row(), index.column()))

    def index_of(self, job_id: str) -> QModelIndex:
        if self._view.grid is None:
            row = self._rows.get(job_id)
            return self.index(row, 0) if row is not None else QModelIndex()
        place = self._view.grid.places.get(job_id)
        if place is None or self._view.grid.page_of.get(job_id, 0) != self._page:
            return QModelIndex()
        return self.index(*place)

    # --- Qt model interface -----------------------------------------------------------------------

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid():
            return 0
        return len(self._shown) if self._view.grid is None else len(self._view.grid.rows)

    def columnCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid():
            return 0
        return 1 if self._view.grid is None else len(self._view.grid.columns)

    def flags(self, index: AnyIndex) -> Qt.ItemFlag:
        if self.job_id_at(index) is None:
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = 0) -> Any:
        grid = self._view.grid
        horizontal = orientation == Qt.Orientation.Horizontal
        if grid is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            labels = grid.columns if horizontal else grid.rows
        elif role == Qt.ItemDataRole.ToolTipRole:  # the full text of an elided edge
            labels = grid.column_tips if horizontal else grid.row_tips
        else:
            return None
        return labels[section] if 0 <= section < len(labels) else None

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        job_id = self.job_id_at(index)
        if job_id is None:
            return None
        job = self._view.jobs[job_id]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._view.labels.get(job_id, "")
        if role == JOB_ROLE:
            return job
        if role == PICTURE_ROLE:
            return self._picture(job)
        if role == STATUS_ROLE:
            return self._status(job)
        if role == PROGRESS_ROLE:
            return self._progress.get(job_id, -1.0) if job.state is JobState.running else None
        if role == MARK_ROLE:
            return self._view.marks.get(job_id)
        if role == SHOWN_ROLE:
            return self._filter.admits(self._view.marks.get(job_id))
        if role == PATH_ROLE:
            return self._view.pictures.get(job_id)
        if role == LABEL_LINES_ROLE:
            return self.label_lines()
        if role == Qt.ItemDataRole.ToolTipRole:
            text, _kind = self._status(job)
            parts = (self._view.labels.get(job_id, ""), text or job.state.value, self._why(job))
            return "\n".join(part for part in parts if part)
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return self.spoken(index, job)
        if role == Qt.ItemDataRole.AccessibleDescriptionRole:
            return self._why(job) or self.spoken(index, job)
        return None

    def _why(self, job: JobRecord) -> str:
        """Why a pending job waits, or why a failed one failed ("" when neither)."""
        error = self._view.errors.get(job.id)
        waiting = self.waiting_for(job.id) if job.state is JobState.pending else ""
        return waiting_text(waiting) or (error.short() if error else "")

    def spoken(self, index: AnyIndex, job: JobRecord) -> str:
        """What assistive technology says of a cell: its label (in a grid, its place on the
        edges first), its state and its mark: "seed 10, succeeded, starred", "seed 11,
        failed: out of memory", "seed 12, running 40 %"."""
        grid = self._view.grid
        parts = []
        if grid is not None:
            parts += [_at(grid.column_tips, index.column()), _at(grid.row_tips, index.row())]
        parts.append(self._view.labels.get(job.id, ""))
        text, _kind = self._status(job)
        fraction = self._progress.get(job.id, -1.0)
        if job.state is JobState.running and fraction >= 0:
            text = f"running {round(100 * fraction)} %"
        parts.append(text if text and job.state is not JobState.succeeded else job.state.value)
        if text and job.state is JobState.succeeded:  # deleted, or no picture
            parts.append(text)
        parts.append(_MARK_WORDS.get(self.mark_of(job.id), ""))
        return ", ".join(part for part in parts if part)

    def _picture(self, job: JobRecord) -> QPixmap | None:
        if job.state is not JobState.succeeded:
            return self._previews.get(job.id) if job.state is JobState.running else None
        source = self._view.pictures.get(job.id)
        if source is None:
            return None
        return self._thumbnails.pixmap(source)

    def _status(self, job: JobRecord) -> tuple[str, str]:
        """What the cell says and how (kind: muted, active, failed, cancelled, done)."""
        match job.state:
            case JobState.pending:
                if self.waiting_for(job.id):
                    return NO_SERVER_SHORT, "muted"
                place = self._line.get(job.id)
                return (f"#{place} in line" if place else "waiting"), "muted"
            case JobState.queued:
                # Counted as "#N in line" is, every prompt to run before it plus one: ComfyUI's
                # place (0: running, 1: next there) plus one, so the sheet reads running, #2,
                # #3 and on into the pending "#4 in line" (it read #1, #2, #4).
                place = self._positions.get(job.id)
                return (f"in ComfyUI · #{place + 1}" if place else "queued"), "muted"
            case JobState.running:
                return "running", "active"
            case JobState.cancelling:
                return "cancelling…", "cancelled"
            case JobState.failed:
                return f"failed: {reason_text(job.reason) or 'error'}", "failed"
            case JobState.cancelled:
                return "cancelled", "cancelled"
            case JobState.succeeded:
                if self._view.pictures.get(job.id):
                    return "", "done"
                return (
                    ("deleted", "cancelled")
                    if job.id in self._view.deleted
                    else ("no picture", "failed")
                )


def _no_wait(_job_id: str) -> str:
    return ""


def _at(texts: list[str], n: int) -> str:
    return texts[n] if 0 <= n < len(texts) else ""
