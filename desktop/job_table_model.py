"""The jobs table: a Qt model following the ledger's change feed, plus the controller's status."""

from __future__ import annotations

import itertools
import time
from enum import IntEnum
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    QTimer,
    Signal,
    Slot,
)

from core.job_state import JobState
from desktop.job_states import reason_label, state_colour, state_label

if TYPE_CHECKING:
    from core.controller.status import ControllerStatus, Progress
    from core.ledger import JobRecord, Ledger

    AnyIndex = QModelIndex | QPersistentModelIndex


class Column(IntEnum):
    job = 0
    batch = 1
    values = 2
    state = 3
    attempt = 4
    position = 5
    progress = 6
    elapsed = 7
    reason = 8
    warning = 9


HEADERS = {
    Column.job: "Job",
    Column.batch: "Batch",
    Column.values: "Seed / values",
    Column.state: "State",
    Column.attempt: "Attempt",
    Column.position: "In queue",
    Column.progress: "Progress",
    Column.elapsed: "Elapsed",
    Column.reason: "Reason",
    Column.warning: "⚠",
}

JOB_ROLE = Qt.ItemDataRole.UserRole
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
PROGRESS_ROLE = Qt.ItemDataRole.UserRole + 2

_TICKING = frozenset({JobState.running, JobState.cancelling})
_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


class JobTableModel(QAbstractTableModel):
    """Every job of the ledger, one row each, in the order the feed first reported them.

    Reads the feed in chunks (``chunk`` jobs, a few tens of milliseconds) so the GUI stays
    fluid with 100,000 jobs: while a backlog remains, the next chunk is read on the next turn
    of the event loop; then the feed is polled every ``poll_ms``. ``data()`` never queries the
    ledger. Queue positions and progress come from the controller's status.

    Signals:
        feed_read(list): the JobRecords just read from the feed (new or changed).
        loaded(): the backlog has been read; from now on the feed is followed.
    """

    feed_read = Signal(list)
    loaded = Signal()

    def __init__(self, ledger: Ledger, parent: Any = None, *, chunk: int = 1000) -> None:
        super().__init__(parent)
        self._ledger = ledger
        self._chunk = chunk
        self._jobs: list[JobRecord] = []
        self._rows: dict[str, int] = {}
        self._seq = 0
        self._backlog = True
        self._reading = False
        self._stopped = False
        self._ticking: set[str] = set()
        self._positions: dict[str, int] = {}
        self._progress: dict[str, Progress] = {}
        self._poll = QTimer(self)
        self._poll.timeout.connect(self.refresh)
        self._tick = QTimer(self)
        self._tick.setInterval(1000)
        self._tick.timeout.connect(self.tick_elapsed)

    # --- following the ledger ------------------------------------------------------------------

    def start(self, poll_ms: int = 250) -> None:
        self._poll.start(poll_ms)
        self._tick.start()

    def stop(self) -> None:
        """Stop following the ledger (it may be closed next)."""
        self._stopped = True
        self._poll.stop()
        self._tick.stop()

    @property
    def loading(self) -> bool:
        """Whether older jobs are still being read from the ledger."""
        return self._backlog

    @Slot()
    def refresh(self) -> None:
        """Read one chunk of the feed; schedule the next at once while a backlog remains."""
        self.read_chunk()
        if self._backlog and self._poll.isActive():
            QTimer.singleShot(0, self, self.refresh)

    def read_chunk(self) -> int:
        if (
            self._reading or self._stopped
        ):  # fetchMore may be called again from a rowsInserted handler
            return 0
        self._reading = True
        try:
            jobs, self._seq = self._ledger.changes_since(self._seq, self._chunk)
            was_loading, self._backlog = self._backlog, len(jobs) == self._chunk
            self._apply(jobs)
            if was_loading and not self._backlog:
                self._sort_by_creation()
                self.loaded.emit()
        finally:
            self._reading = False
        return len(jobs)

    def load_all(self) -> None:
        """Read the whole backlog now (tests, scripts)."""
        while self.read_chunk() == self._chunk:
            pass

    def _apply(self, jobs: list[JobRecord]) -> None:
        changed: list[int] = []
        new: list[JobRecord] = []
        for job in jobs:
            if job.state in _TICKING:
                self._ticking.add(job.id)
            else:
                self._ticking.discard(job.id)
            row = self._rows.get(job.id)
            if row is None:
                new.append(job)
            else:
                self._jobs[row] = job
                changed.append(row)
        self._insert(new)
        self._emit_changed(changed, Column.job, Column.warning)
        if jobs:
            self.feed_read.emit(jobs)

    def _sort_by_creation(self) -> None:
        """Once the backlog is read, put rows in creation order (the feed gave change order).

        Later jobs are created after these, and changes update rows in place, so the order holds.
        """
        if all(_created(a) <= _created(b) for a, b in itertools.pairwise(self._jobs)):
            return
        self.layoutAboutToBeChanged.emit()
        before = list(self._jobs)
        self._jobs.sort(key=_created)
        self._rows = {job.id: row for row, job in enumerate(self._jobs)}
        old = self.persistentIndexList()
        new = [self.index(self._rows[before[i.row()].id], i.column()) for i in old]
        self.changePersistentIndexList(old, new)
        self.layoutChanged.emit()

    def _insert(self, new: list[JobRecord]) -> None:
        if not new:
            return
        first = len(self._jobs)
        unique = list({job.id: job for job in new}.values())
        self.beginInsertRows(QModelIndex(), first, first + len(unique) - 1)
        for job in unique:
            self._rows[job.id] = len(self._jobs)
            self._jobs.append(job)
        self.endInsertRows()

    def _emit_changed(self, rows: list[int], first: Column, last: Column) -> None:
        """One dataChanged per run of consecutive rows."""
        for start, end in _runs(sorted(set(rows))):
            self.dataChanged.emit(self.index(start, first), self.index(end, last))

    # --- the controller's status ----------------------------------------------------------------

    def set_status(self, status: ControllerStatus) -> None:
        """Take queue positions and progress from a controller snapshot."""
        touched = set(self._positions) | set(status.positions)
        touched |= set(self._progress) | set(status.progress)
        self._positions = dict(status.positions)
        self._progress = dict(status.progress)
        rows = [self._rows[job_id] for job_id in touched if job_id in self._rows]
        self._emit_changed(rows, Column.position, Column.elapsed)

    @Slot()
    def tick_elapsed(self) -> None:
        """Running jobs' elapsed time moves on every second."""
        rows = [self._rows[job_id] for job_id in self._ticking]
        self._emit_changed(rows, Column.elapsed, Column.elapsed)

    # --- lookups ----------------------------------------------------------------------------------

    def job_at(self, row: int) -> JobRecord:
        return self._jobs[row]

    def row_of(self, job_id: str) -> int | None:
        return self._rows.get(job_id)

    def jobs(self) -> list[JobRecord]:
        return list(self._jobs)

    def batch_ids(self) -> list[str]:
        return sorted({job.batch for job in self._jobs})

    # --- Qt model interface ----------------------------------------------------------------------

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._jobs)

    def columnCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(Column)

    def canFetchMore(self, parent: AnyIndex) -> bool:
        return not parent.isValid() and self._backlog

    def fetchMore(self, parent: AnyIndex) -> None:
        if not parent.isValid():
            self.read_chunk()

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = 0) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(Column):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return HEADERS[Column(section)]
        if role == Qt.ItemDataRole.ToolTipRole and section == Column.warning:
            return "Warnings (outputs ComfyUI dropped)"
        return None

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self._jobs):
            return None
        job = self._jobs[index.row()]
        column = Column(index.column())
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(job, column)
        if role == JOB_ROLE:
            return job
        if role == SORT_ROLE:
            return self._sort_key(job, column)
        return self._decoration(job, column, role)

    def _display(self, job: JobRecord, column: Column) -> str:
        match column:
            case Column.job:
                return job.id
            case Column.batch:
                return job.batch
            case Column.values:
                return values_text(job.params)
            case Column.state:
                return state_label(job.state)
            case Column.attempt:
                return str(job.attempt)
            case Column.position:
                position = self._positions.get(job.id)
                return "" if position is None else ("running" if position == 0 else str(position))
            case Column.progress:
                progress = self._progress.get(job.id)
                return f"{progress.value}/{progress.max}" if progress else ""
            case Column.elapsed:
                seconds = self._elapsed(job)
                return "" if seconds is None else duration_text(seconds)
            case Column.reason:
                return reason_label(job.reason)
            case Column.warning:
                return "⚠" if job.warning else ""

    def _decoration(self, job: JobRecord, column: Column, role: int) -> Any:
        if role == Qt.ItemDataRole.BackgroundRole and column == Column.state:
            return state_colour(job.state)
        if role == PROGRESS_ROLE and column == Column.progress:
            progress = self._progress.get(job.id)
            return progress.fraction if progress else None
        if role == Qt.ItemDataRole.ToolTipRole:
            return job.warning if column == Column.warning else job.reason
        if role == Qt.ItemDataRole.TextAlignmentRole and column in _NUMERIC:
            return int(_RIGHT)
        return None

    def _sort_key(self, job: JobRecord, column: Column) -> Any:
        match column:
            case Column.state:
                return list(JobState).index(job.state)
            case Column.attempt:
                return job.attempt
            case Column.position:
                return self._positions.get(job.id, 1 << 30)
            case Column.progress:
                progress = self._progress.get(job.id)
                return progress.fraction if progress else -1.0
            case Column.elapsed:
                return self._elapsed(job) or 0.0
            case Column.job:
                return job.created_at, job.id
            case _:
                return self._display(job, column)

    @staticmethod
    def _elapsed(job: JobRecord) -> float | None:
        """How long the current attempt ran (so far, while it runs); blank if it never ran."""
        if job.started_at is None:
            return None
        end = job.finished_at if job.state.is_terminal else None
        return max(0.0, (end if end is not None else time.time()) - job.started_at)


_NUMERIC = frozenset({Column.attempt, Column.position, Column.elapsed})


def values_text(params: dict[str, Any]) -> str:
    """``{"3.seed": 5, "6.text": "a cat"}`` → ``seed=5, text=a cat`` (node ids only if needed)."""
    names = [key.partition(".")[2] or key for key in params]
    parts = []
    for key, value in sorted(params.items(), key=lambda item: item[0]):
        name = key.partition(".")[2] or key
        label = name if names.count(name) == 1 else key
        text = value if isinstance(value, str) else repr(value)
        parts.append(f"{label}={text[:40]}")
    return ", ".join(parts)


def duration_text(seconds: float) -> str:
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m {seconds % 60:02d}s"
    return f"{seconds // 3600}h {seconds % 3600 // 60:02d}m"


def _created(job: JobRecord) -> tuple[float, str]:
    return job.created_at, job.id


def _runs(rows: list[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for row in rows:
        if runs and runs[-1][1] == row - 1:
            runs[-1] = (runs[-1][0], row)
        else:
            runs.append((row, row))
    return runs
