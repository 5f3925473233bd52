"""The contact sheet's model: one cell per job of one batch, live.

A plain batch is one column of cells in seed order (a list view lays them out in rows); an
X/Y grid batch is a table whose columns follow the first axis and whose rows follow the second
(one block of rows per other value, e.g. per seed), its axis values in the headers. Jobs come
from the jobs table's feed (``update_jobs``), queue places, progress and previews from the
controller's status (``set_status``); ``data()`` never queries the ledger, and a thumbnail is
asked for only when its cell is painted.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Slot
from PySide6.QtGui import QImage, QPixmap, QPixmapCache

from core.batch.grid_sheet import sheets
from core.batch.pictures import recorded_outputs
from core.batch.varied import BatchValues, input_labels, input_name, value_order, value_text
from core.controller.previews import preview_file
from core.errors import InputError
from core.job_state import JobState
from core.ledger.marks import Mark
from desktop.job_states import reason_label

if TYPE_CHECKING:
    from core.batch.grid_sheet import Axis
    from core.controller.status import ControllerStatus
    from core.ledger import JobRecord, Ledger
    from desktop.thumbnails import ThumbnailLoader

    AnyIndex = QModelIndex | QPersistentModelIndex

JOB_ROLE = Qt.ItemDataRole.UserRole
PICTURE_ROLE = Qt.ItemDataRole.UserRole + 1  # QPixmap: the live preview, or the thumbnail
STATUS_ROLE = Qt.ItemDataRole.UserRole + 2  # (text, kind): what the cell says without a picture
PROGRESS_ROLE = Qt.ItemDataRole.UserRole + 3  # 0..1 while running, -1.0 running unknown
MARK_ROLE = Qt.ItemDataRole.UserRole + 4  # Mark or None
SHOWN_ROLE = Qt.ItemDataRole.UserRole + 5  # False: the mark filter leaves it out (grid only)
PATH_ROLE = Qt.ItemDataRole.UserRole + 6  # the first picture's path, or None

PIXMAP_CACHE_KB = 96 * 1024  # a screenful of thumbnails many times over


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


@dataclass(frozen=True)
class GridLayout:
    """Where each job of a grid batch sits, and the labels on the edges."""

    axes: list[Axis]
    columns: list[str]
    rows: list[str]
    places: dict[str, tuple[int, int]]  # job id -> (row, column)


class ContactSheetModel(QAbstractTableModel):
    """The cells of one batch: each job's label (what varies), state, picture and mark."""

    def __init__(self, ledger: Ledger, thumbnails: ThumbnailLoader, parent: Any = None) -> None:
        super().__init__(parent)
        self._ledger = ledger
        self._thumbnails = thumbnails
        self.output_dir: Path | None = None
        self.batch_id: str | None = None
        self._jobs: dict[str, JobRecord] = {}
        self._order: list[str] = []  # every job of the batch, in seed order
        self._shown: list[str] = []  # those the mark filter admits (plain batches)
        self._rows: dict[str, int] = {}
        self._grid: GridLayout | None = None
        self._cells: dict[tuple[int, int], str] = {}
        self._labels: dict[str, str] = {}
        self._pictures: dict[str, str | None] = {}  # succeeded job -> its first picture
        self._jobs_of_picture: dict[str, str] = {}
        self._marks: dict[str, Mark] = {}
        self._deleted: set[str] = set()  # succeeded jobs whose pictures went to the trash
        self._filter = MarkFilter.all
        self._positions: dict[str, int] = {}
        self._progress: dict[str, float] = {}
        self._preview_counts: dict[str, int] = {}
        self._previews: dict[str, QPixmap] = {}
        self._line: dict[str, int] = {}
        QPixmapCache.setCacheLimit(max(QPixmapCache.cacheLimit(), PIXMAP_CACHE_KB))
        thumbnails.ready.connect(self.thumbnail_ready)

    # --- the batch ------------------------------------------------------------------------------

    def load_batch(self, batch_id: str | None) -> None:
        """Show this batch's jobs (None: none), read from the ledger once."""
        self.beginResetModel()
        self.batch_id = batch_id
        jobs = self._ledger.jobs(batch=batch_id) if batch_id else []
        self._jobs = {job.id: job for job in jobs}
        keys, self._labels = _labels(jobs)
        order = sorted(jobs, key=lambda j: ([value_order(j.params.get(k)) for k in keys], j.id))
        self._order = [job.id for job in order]
        self._marks = self._ledger.marks.in_batch(batch_id) if batch_id else {}
        self._pictures.clear()
        self._deleted.clear()
        self._jobs_of_picture.clear()
        self._previews.clear()
        self._preview_counts.clear()
        self._read_pictures([job.id for job in jobs if job.state is JobState.succeeded])
        self._grid = self._grid_layout(batch_id) if batch_id else None
        if self._grid is not None:
            axis_keys = {axis.key for axis in self._grid.axes}
            self._labels = _labels(jobs, leave_out=axis_keys, seeds_always=False)[1]
        self._lay_out()
        self.endResetModel()

    def _grid_layout(self, batch_id: str) -> GridLayout | None:
        try:
            axes, found = sheets(self._ledger, batch_id)
        except InputError:
            return None
        if not axes:
            return None
        ys = [_axis_value(axes, 1, y) for y in axes[1].values] if len(axes) > 1 else [""]
        several = len(found) > 1  # one block of rows per seed, say
        rows = [
            " · ".join(part for part in (sheet.label if several else "", y) if part)
            for sheet in found
            for y in ys
        ]
        places = {
            cell.job.id: (block * len(ys) + row, column)
            for block, sheet in enumerate(found)
            for (column, row), cell in sheet.cells.items()
        }
        columns = [_axis_value(axes, 0, x) for x in axes[0].values]
        return GridLayout(axes, columns, rows, places)

    def _lay_out(self) -> None:
        """Which job each cell shows, after the mark filter."""
        admitted = [job for job in self._order if self._filter.admits(self._marks.get(job))]
        self._shown = admitted if self._grid is None else []
        if self._grid is None:
            self._rows = {job: row for row, job in enumerate(self._shown)}
            self._cells = {}
        else:
            self._cells = {place: job for job, place in self._grid.places.items()}
            self._rows = {}

    def _read_pictures(self, job_ids: list[str]) -> None:
        """The first picture of each of these succeeded jobs (one ledger read for them all)."""
        if not job_ids:
            return
        for job_id, attempts in self._ledger.attempts_of(job_ids).items():
            paths = recorded_outputs(attempts, self.output_dir)
            there = [path for path in paths if path.is_file()]
            self._pictures[job_id] = str(there[0]) if there else None
            if there:
                self._jobs_of_picture[str(there[0])] = job_id
            elif paths:
                self._deleted.add(job_id)

    @property
    def grid(self) -> GridLayout | None:
        return self._grid

    def set_mark_filter(self, mark_filter: MarkFilter) -> None:
        if mark_filter == self._filter:
            return
        self._filter = mark_filter
        if self._grid is None:
            self.beginResetModel()
            self._lay_out()
            self.endResetModel()
        else:
            self._changed(list(self._jobs))

    # --- live changes ---------------------------------------------------------------------------

    @Slot(list)
    def update_jobs(self, jobs: list[JobRecord]) -> None:
        """Jobs the feed just read (any batch): this batch's cells follow them."""
        mine = [job for job in jobs if job.batch == self.batch_id]
        if not mine:
            return
        if any(job.id not in self._jobs for job in mine):
            self.load_batch(self.batch_id)  # jobs added to the batch: rare
            return
        newly_done = [
            job.id
            for job in mine
            if job.state is JobState.succeeded and job.id not in self._pictures
        ]
        for job in mine:
            self._jobs[job.id] = job
            if job.state is not JobState.succeeded:
                self._pictures.pop(job.id, None)  # retried: its new picture comes later
        self._read_pictures(newly_done)
        self._changed([job.id for job in mine])

    def set_status(self, status: ControllerStatus) -> None:
        """Queue places, progress and the newest previews from a controller snapshot."""
        touched = set(self._positions) | set(self._progress) | set(self._preview_counts)
        self._positions = {j: p for j, p in status.positions.items() if j in self._jobs}
        self._progress = {j: p.fraction for j, p in status.progress.items() if j in self._jobs}
        counts = {j: n for j, n in status.previews.items() if j in self._jobs}
        for job_id, count in counts.items():
            if self._preview_counts.get(job_id) != count and self._load_preview(job_id):
                self._preview_counts[job_id] = count
        for job_id in [j for j in self._previews if j not in counts]:
            del self._previews[job_id]
            self._preview_counts.pop(job_id, None)
        touched |= set(self._positions) | set(self._progress) | set(counts)
        self._changed(sorted(touched))

    def _load_preview(self, job_id: str) -> bool:
        """Read the job's newest preview file (small: a sampler's preview); whether it was."""
        path = self.batch_id and preview_file(self._ledger.folder, job_id)
        image = QImage()  # from the bytes: a file name may give a cached older picture
        with contextlib.suppress(OSError):
            image.loadFromData(path.read_bytes() if path else b"")
        if image.isNull():  # replaced or gone meanwhile: the next count brings another
            return False
        self._previews[job_id] = QPixmap.fromImage(image)
        return True

    def set_line(self, places: dict[str, int]) -> None:
        """Pending jobs' places in line (1: the next to be sent)."""
        touched = set(self._line) ^ set(places) | {
            j for j, n in places.items() if self._line.get(j) != n
        }
        self._line = {j: n for j, n in places.items() if j in self._jobs}
        self._changed(sorted(touched))

    def refresh_job(self, job_id: str) -> None:
        """Read the job's mark again, and whether its picture is still there (another window
        marked it, or moved it to the trash)."""
        if job_id not in self._jobs:
            return
        mark = self._ledger.marks.of([job_id]).get(job_id)
        picture = self._pictures.get(job_id)
        if picture is not None and not Path(picture).is_file():
            self._pictures[job_id] = None
            self._deleted.add(job_id)
        self.set_marks([job_id], mark)

    def set_marks(self, job_ids: list[str], mark: Mark | None) -> None:
        for job_id in job_ids:
            if mark is None:
                self._marks.pop(job_id, None)
            else:
                self._marks[job_id] = mark
        if self._grid is None and self._filter is not MarkFilter.all:
            self.beginResetModel()
            self._lay_out()
            self.endResetModel()
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
        """The batch's jobs in seed order (every one, whatever the filter)."""
        return [self._jobs[job_id] for job_id in self._order]

    def mark_of(self, job_id: str) -> Mark | None:
        return self._marks.get(job_id)

    def job_id_at(self, index: AnyIndex) -> str | None:
        if not index.isValid():
            return None
        if self._grid is None:
            row = index.row()
            return self._shown[row] if 0 <= row < len(self._shown) else None
        return self._cells.get((index.row(), index.column()))

    def index_of(self, job_id: str) -> QModelIndex:
        if self._grid is None:
            row = self._rows.get(job_id)
            return self.index(row, 0) if row is not None else QModelIndex()
        place = self._grid.places.get(job_id)
        return self.index(*place) if place is not None else QModelIndex()

    # --- Qt model interface -----------------------------------------------------------------------

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid():
            return 0
        return len(self._shown) if self._grid is None else len(self._grid.rows)

    def columnCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid():
            return 0
        return 1 if self._grid is None else len(self._grid.columns)

    def flags(self, index: AnyIndex) -> Qt.ItemFlag:
        if self.job_id_at(index) is None:
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = 0) -> Any:
        if self._grid is None or role != Qt.ItemDataRole.DisplayRole:
            return None
        labels = self._grid.columns if orientation == Qt.Orientation.Horizontal else self._grid.rows
        return labels[section] if 0 <= section < len(labels) else None

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        job_id = self.job_id_at(index)
        if job_id is None:
            return None
        job = self._jobs[job_id]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._labels.get(job_id, "")
        if role == JOB_ROLE:
            return job
        if role == PICTURE_ROLE:
            return self._picture(job)
        if role == STATUS_ROLE:
            return self._status(job)
        if role == PROGRESS_ROLE:
            return self._progress.get(job_id, -1.0) if job.state is JobState.running else None
        if role == MARK_ROLE:
            return self._marks.get(job_id)
        if role == SHOWN_ROLE:
            return self._filter.admits(self._marks.get(job_id))
        if role == PATH_ROLE:
            return self._pictures.get(job_id)
        if role == Qt.ItemDataRole.ToolTipRole:
            text, _kind = self._status(job)
            label = self._labels.get(job_id, "")
            return "\n".join(part for part in (label, text or job.state.value) if part)
        return None

    def _picture(self, job: JobRecord) -> QPixmap | None:
        if job.state is not JobState.succeeded:
            return self._previews.get(job.id) if job.state is JobState.running else None
        source = self._pictures.get(job.id)
        if source is None:
            return None
        thumb = self._thumbnails.cached(source)
        if thumb is None:
            self._thumbnails.request(source)  # painted now: worth making
            return None
        pixmap = QPixmap()
        if not QPixmapCache.find(thumb, pixmap) and pixmap.load(thumb):
            QPixmapCache.insert(thumb, pixmap)
        return pixmap

    def _status(self, job: JobRecord) -> tuple[str, str]:
        """What the cell says and how (kind: muted, active, failed, cancelled, done)."""
        match job.state:
            case JobState.pending:
                place = self._line.get(job.id)
                return (f"#{place} in line" if place else "waiting"), "muted"
            case JobState.queued:
                place = self._positions.get(job.id)
                return (f"queued · #{place}" if place else "queued"), "muted"
            case JobState.running:
                return "running", "active"
            case JobState.cancelling:
                return "cancelling…", "cancelled"
            case JobState.failed:
                return f"failed: {reason_label(job.reason) or 'error'}", "failed"
            case JobState.cancelled:
                return "cancelled", "cancelled"
            case JobState.succeeded:
                if self._pictures.get(job.id):
                    return "", "done"
                return (
                    ("deleted", "cancelled")
                    if job.id in self._deleted
                    else ("no picture", "failed")
                )


def _labels(
    jobs: list[JobRecord],
    leave_out: set[str] | frozenset[str] = frozenset(),
    *,
    seeds_always: bool = True,
) -> tuple[list[str], dict[str, str]]:
    """The inputs that tell the batch's jobs apart (those that vary, and the seeds unless
    ``seeds_always`` is False), and each job's label made of them: "seed 1234", "cfg 7 ·
    steps 20"."""
    values = BatchValues()
    for job in jobs:
        values.add(job.params)
    keys = sorted((values.columns() if seeds_always else values.varied) - set(leave_out))
    names = input_labels(keys)
    labels = {
        job.id: " · ".join(
            f"{names[key]} {_short(job.params[key])}" for key in keys if key in job.params
        )
        for job in jobs
    }
    return keys, labels


def _axis_value(axes: list[Axis], n: int, value: Any) -> str:
    return f"{input_name(axes[n].key)} {_short(value)}"


def _short(value: Any, limit: int = 24) -> str:
    text = value_text(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
