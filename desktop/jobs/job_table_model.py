"""The jobs table: a Qt model following the ledger's change feed, plus the controller's status."""

from __future__ import annotations

import time
from enum import IntEnum
from operator import attrgetter
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

from core.batch.varied import (
    BatchValues,
    batch_colours,
    input_labels,
    is_seed,
    value_order,
    value_text,
    workflow_input_names,
)
from core.controller.placing_said import NO_SERVER_SHORT, WaitingReasons, host_text
from core.controller.status import Connection
from core.durations import duration_text
from core.errors import BatchlineError, LedgerError
from core.job_state import JobState
from core.ledger.attempt_error import current_errors
from core.reason_texts import reason_text
from desktop.jobs.batch_names import batch_label
from desktop.jobs.job_states import state_colour, state_label

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from core.controller.status import ControllerStatus, Progress
    from core.ledger import JobRecord, Ledger
    from core.ledger.attempt_error import AttemptError

    AnyIndex = QModelIndex | QPersistentModelIndex


class Column(IntEnum):
    """The fixed columns, the job's state first; each varied input's own column follows them
    (``value_key``); the view shows those before the reason, the batch and the job's id."""

    state = 0
    progress = 1
    position = 2
    attempt = 3
    elapsed = 4
    warning = 5
    reason = 6
    batch = 7
    job = 8


STATE_COLUMNS = (
    Column.state,
    Column.progress,
    Column.position,
    Column.attempt,
    Column.elapsed,
    Column.warning,
)


HEADERS = {
    Column.state: "State",
    Column.progress: "Progress",
    Column.position: "In queue",
    Column.attempt: "Attempt",
    Column.elapsed: "Elapsed",
    Column.warning: "⚠",
    Column.reason: "Reason",
    Column.batch: "Batch",
    Column.job: "Job",
}

JOB_ROLE = Qt.ItemDataRole.UserRole
PROGRESS_ROLE = Qt.ItemDataRole.UserRole + 2

_TICKING = frozenset({JobState.running, JobState.cancelling})
_STATE_ORDER = {state: index for index, state in enumerate(JobState)}
RESORT_DELAY_MS = 1000


def why_waiting(status: ControllerStatus) -> tuple[str, str] | None:
    """Why pending jobs are not sent now, short (the "In queue" column) and in full (its and
    the state's tooltip); None when they are only waiting their turn."""
    host = host_text(status.server) or "the server"
    if status.stopped:
        return "controller stopped", f"Waiting: {status.stopped}. Nothing is sent meanwhile."
    if status.connection in (Connection.offline, Connection.reconnecting):
        detail = f" ({status.last_error})" if status.last_error else ""
        return "waiting for the server", (
            f"Waiting for the server: {host} does not answer{detail}. The job is sent when "
            "it answers again."
        )
    if status.paused:
        return "dispatch paused", "Waiting: dispatch is paused (Jobs › Resume dispatch)."
    return None


def checking_since(status: ControllerStatus) -> float | None:
    """Queued and running jobs last written before this moment may have moved on the server
    unseen, until the controller (being started, or started then) finds them in ComfyUI's queue
    (``positions``) or writes their news. None when no controller runs to ask."""
    if status.stopped or status.started_at <= 0:
        return None
    return status.started_at


# How often the servers' offers are read again for why pending jobs wait (a changed offer then
# says so on every pending row; an unchanged one costs one read).
PLACING_REFRESH_S = 5.0


def placing_tip(reason: str) -> str:
    """A pending job's placement reason in full, for its tooltip."""
    return (
        f"Waiting: {reason}. It is sent as soon as a server that has what it needs is "
        "connected (Settings › Refresh models after adding the file)."
    )


CHECKING = "checking…"
CHECKING_TIP = "Batchline is asking ComfyUI about this job"
_ON_SERVER = frozenset({JobState.queued, JobState.running})

STALLED_NOTE = (
    "Running longer than the stall limit: ComfyUI may be stuck. Cancel it, or restart ComfyUI "
    "(the job is then retried)."
)
WARNING_HEADER_TIP = (
    "⚠ Warnings: a job running past the stall limit (ComfyUI may be stuck), or one ComfyUI "
    "took with a warning (output nodes it dropped: fewer pictures). Point at a ⚠ to read it."
)
_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


class JobTableModel(QAbstractTableModel):
    """Every job of the ledger, one row each, in the order the feed first reported them.

    Reads the feed in chunks (``chunk`` jobs, a few tens of milliseconds) so the GUI stays
    fluid with 100,000 jobs: while a backlog remains, the next chunk is read on the next turn
    of the event loop; then the feed is polled every ``poll_ms``. ``data()`` never queries the
    ledger. Queue positions and progress come from the controller's status.

    After the fixed columns (``Column``) comes one per input a batch varies (grid axes, list
    values) and per seed input, in the order they were first seen: a job's own value there, in
    full. What a whole batch shares is said once for it (``batch_line``).

    Signals:
        feed_read(list): the JobRecords just read from the feed (new or changed).
        loaded(): the backlog has been read; from now on the feed is followed.
        values_changed(): a batch's varied inputs or shared values changed (a new batch, or a
            job setting a value differently from the others).
    """

    feed_read = Signal(list)
    waits_changed = Signal()
    loaded = Signal()
    values_changed = Signal()

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
        self._stalled: frozenset[str] = frozenset()
        self._waiting_for: tuple[str, str] | None = None  # short, long: why pending jobs wait
        self._checking_since: float | None = None  # see checking_since
        self._placing = WaitingReasons(ledger)
        self._placing_read = 0.0  # monotonic time the servers were last read for it
        self._waits: dict[str, str] = {}  # pending job id -> why no server can run it
        self._batch_values: dict[str, BatchValues] = {}
        self._batch_names: dict[str, str] = {}  # the batches the artist named
        self._errors: dict[str, AttemptError] = {}  # why each failed job failed
        self._value_keys: list[str] = []  # the input of each column after the fixed ones
        self._value_labels: dict[str, str] = {}
        self._input_names: dict[str, dict[str, str]] = {}  # per batch: its inputs' names
        self._colours: dict[str, frozenset[str]] = {}  # per batch: its inputs shown as colours
        self._sorting: tuple[int, bool] | None = None  # column, descending; None: creation
        self._held = False  # the pointer is over the table: rows keep their places
        self._resort = QTimer(self)
        self._resort.setSingleShot(True)
        self._resort.timeout.connect(self._reorder_unless_held)
        self._reorder_cost = 0.0  # seconds the last reorder took
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
        self._resort.stop()

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
                self._reorder()  # the feed gave change order
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
        self._read_errors(jobs)
        self._read_waits(jobs)
        first_new = len(self._jobs)
        values_changed = self._gather_values(new)
        self._insert(new)
        if values_changed:  # once the rows are in: the view sizes the columns to them
            self.values_changed.emit()
        self._emit_changed(changed, 0, self.columnCount() - 1)
        if not self._backlog and self._out_of_order(changed, range(first_new, len(self._jobs))):
            self._schedule_reorder()
        if jobs:
            self.feed_read.emit(jobs)

    def _read_waits(self, jobs: list[JobRecord]) -> None:
        """Why each pending job of ``jobs`` waits when no server can run it (its needs are
        cached per workflow and model values: cheap for a batch of thousands). Nothing is read
        before the first status has read the servers."""
        if not self._placing.read:
            return
        for job in jobs:
            reason = self._placing.of(job)
            if reason:
                self._waits[job.id] = reason
            else:
                self._waits.pop(job.id, None)

    def _reread_servers(self) -> bool:
        """Read the servers' offers again (at most every ``PLACING_REFRESH_S``); when they
        changed, say it again for every pending job. Whether the reasons were read again."""
        now = time.monotonic()
        if now - self._placing_read < PLACING_REFRESH_S:
            return False
        self._placing_read = now
        if not self._placing.refresh():
            return False
        self._waits.clear()
        self._read_waits([job for job in self._jobs if job.state is JobState.pending])
        self.waits_changed.emit()
        return True

    def waiting_for(self, job_id: str) -> str:
        """Why the pending job waits because no server can run it ("" if it does not)."""
        return self._waits.get(job_id, "")

    def _read_errors(self, jobs: list[JobRecord]) -> None:
        """The errors of the jobs that failed: read in one go, shown as the row's tooltip."""
        failed = [job for job in jobs if job.state is JobState.failed]
        for job in jobs:
            self._errors.pop(job.id, None)
        if failed:
            self._errors.update(
                current_errors(failed, self._ledger.attempts_of([j.id for j in failed]))
            )

    # --- order ------------------------------------------------------------------------------------

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Order the rows by ``column`` (-1: creation order), in Python, once.

        A QSortFilterProxyModel would compare rows through ``data()``, two calls into Python per
        comparison: over 100,000 jobs that took 10 to 30 s. Here every key is computed once, and
        the proxy above only filters. While sorted, new and changed rows that land out of order
        are put in place by one reorder a little later (see ``_schedule_reorder``).
        """
        descending = order == Qt.SortOrder.DescendingOrder
        sorting = (column, descending) if 0 <= column < self.columnCount() else None
        if sorting == self._sorting and not self._resort.isActive():
            return  # already in this order (QTableView.sortByColumn asks twice)
        self._sorting = sorting
        self._reorder()

    def _key(self) -> Callable[[JobRecord], Any]:
        """The current order's key: the column's value, then creation order for ties."""
        if self._sorting is None:
            return _created
        value = self._column_key(self._sorting[0])
        return lambda job: (value(job), job.created_at, job.id)

    def _out_of_order(self, changed: list[int], new: range) -> bool:
        """Whether a changed or new row now breaks the order (checked against its neighbours)."""
        rows = set(new) | (set(changed) if self._sorting is not None else set())
        if not rows:
            return False
        key, jobs = self._key(), self._jobs
        descending = self._sorting is not None and self._sorting[1]

        def in_order(a: int, b: int) -> bool:
            first, second = key(jobs[a]), key(jobs[b])
            return bool(second <= first) if descending else bool(first <= second)

        return any(
            (row > 0 and not in_order(row - 1, row))
            or (row + 1 < len(jobs) and not in_order(row, row + 1))
            for row in rows
        )

    def _schedule_reorder(self) -> None:
        """Reorder after RESORT_DELAY_MS, or 20 times the last reorder's cost if that is longer.

        Over 100,000 jobs a reorder takes a few hundred milliseconds: rows that changed wait
        longer for their place, and sorting never takes more than 5 % of the GUI thread.
        """
        if not self._resort.isActive():
            self._resort.start(max(RESORT_DELAY_MS, round(20_000 * self._reorder_cost)))

    def hold_order(self, held: bool) -> None:
        """While ``held`` (the pointer is over the table) no row moves: a job whose state
        changed (a running one finishing) keeps its place, so that a click meant for it cannot
        land on another that moved in; its place is taken once the hold ends. An order asked
        for (a header's click) is put in place at once, held or not."""
        self._held = held
        if not held and self._sorting is not None:
            self._schedule_reorder()

    @Slot()
    def _reorder_unless_held(self) -> None:
        if not self._held:
            self._reorder()

    @Slot()
    def _reorder(self) -> None:
        """Put the rows in the current order; selections (persistent indexes) stay on their jobs."""
        started = time.perf_counter()
        key = self._key()
        keys = [key(job) for job in self._jobs]
        descending = self._sorting is not None and self._sorting[1]
        order = sorted(range(len(keys)), key=keys.__getitem__, reverse=descending)
        if order == list(range(len(keys))):
            return
        self.layoutAboutToBeChanged.emit()
        before = self._jobs
        self._jobs = [before[row] for row in order]
        self._rows = {job.id: row for row, job in enumerate(self._jobs)}
        old = self.persistentIndexList()
        new = [self.index(self._rows[before[i.row()].id], i.column()) for i in old]
        self.changePersistentIndexList(old, new)
        self.layoutChanged.emit()
        self._reorder_cost = time.perf_counter() - started

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

    def _emit_changed(self, rows: list[int], first: int, last: int) -> None:
        """One dataChanged per run of consecutive rows."""
        for start, end in _runs(sorted(set(rows))):
            self.dataChanged.emit(self.index(start, first), self.index(end, last))

    # --- the values batches vary ------------------------------------------------------------------

    def _gather_values(self, new: list[JobRecord]) -> bool:
        """Count the new jobs' values in their batches; add a column per input newly shown.
        Returns whether a batch's varied inputs or shared values changed."""
        changed = False
        for job in new:
            values = self._batch_values.get(job.batch)
            if values is None:
                values = self._batch_values[job.batch] = BatchValues()
                changed = True
            if job.batch not in self._colours and _may_be_colour(job.params):
                self._colours[job.batch] = self._colours_in(job.batch)
            changed = values.add(job.params) or changed
        if not changed:
            return False
        known = set(self._value_keys)
        shown = set().union(*(v.columns() for v in self._batch_values.values()))
        added = sorted(shown - known, key=_seeds_first)
        if added:
            first = len(Column) + len(self._value_keys)
            self.beginInsertColumns(QModelIndex(), first, first + len(added) - 1)
            self._value_keys.extend(added)
            self._value_labels = {}  # named when first shown (reading the workflows then)
            self.endInsertColumns()
            if first > len(Column):  # a name may now need its node id
                self.headerDataChanged.emit(Qt.Orientation.Horizontal, len(Column), first - 1)
        return True

    def _names_in(self, batch: str) -> dict[str, str]:
        """The names of the batch's inputs, read once ({} when its workflow cannot be read)."""
        if batch not in self._input_names:
            try:
                self._input_names[batch] = workflow_input_names(self._ledger, batch)
            except LedgerError:
                self._input_names[batch] = {}
        return self._input_names[batch]

    def _colours_in(self, batch: str) -> frozenset[str]:
        """The batch's inputs shown as colours (#3399FF), as the composer shows them."""
        try:
            return batch_colours(self._ledger, batch)
        except BatchlineError:
            return frozenset()

    def colours_of(self, batch: str) -> frozenset[str]:
        """The inputs of a batch read so far that are colours (none for a batch not read)."""
        return self._colours.get(batch, frozenset())

    def _column_names(self, keys: list[str]) -> dict[str, str]:
        """Each value column's header: its input as the composer names it in the batches that
        set it; its ``NODE_ID.INPUT`` beside it where two columns (or two batches' workflows)
        would read alike, the bare input name where no workflow names it."""
        named: dict[str, str] = {}
        for key, bare in input_labels(keys).items():
            batches = [self._names_in(batch) for batch in self._batch_values]
            found = {names[key] for names in batches if key in names}
            named[key] = found.pop() if len(found) == 1 else (f"{bare} ({key})" if found else bare)
        counts: dict[str, int] = {}
        for name in named.values():
            counts[name] = counts.get(name, 0) + 1
        return {
            key: name if counts[name] == 1 or key in name else f"{name} ({key})"
            for key, name in named.items()
        }

    def value_key(self, column: int) -> str | None:
        """The input (``NODE_ID.INPUT``) a column after the fixed ones shows; None for those."""
        offset = column - len(Column)
        return self._value_keys[offset] if 0 <= offset < len(self._value_keys) else None

    def value_column(self, key: str) -> int | None:
        """The column showing input ``key``, if any job shows it."""
        try:
            return len(Column) + self._value_keys.index(key)
        except ValueError:
            return None

    def value_columns_of(self, batch: str | None) -> list[int]:
        """The value columns that batch's jobs fill (None: every batch's)."""
        if batch is None:
            return list(range(len(Column), self.columnCount()))
        values = self._batch_values.get(batch)
        shown = values.columns() if values is not None else set()
        return [len(Column) + i for i, key in enumerate(self._value_keys) if key in shown]

    def batch_line(self, batch: str) -> str:
        """What every job of the batch sets alike, said once: ``steps 30 · cfg 7.5 (all 40)``."""
        values = self._batch_values.get(batch)
        if values is None:
            return ""
        shared = values.shared()
        names = self._names_in(batch)
        labels = {key: names.get(key) or label for key, label in input_labels(shared).items()}
        colours = self.colours_of(batch)
        parts = [
            f"{labels[key]} {value_text(value, key in colours)}" for key, value in shared.items()
        ]
        every = f"all {values.jobs}" if values.jobs > 1 else "its one job"
        return f"{' · '.join(parts)} ({every})" if parts else ""

    # --- the controller's status ----------------------------------------------------------------

    def set_status(self, status: ControllerStatus) -> None:
        """Take queue positions and progress from a controller snapshot."""
        touched = set(self._positions) | set(status.positions)
        touched |= set(self._progress) | set(status.progress)
        touched |= self._stalled ^ status.stalled
        self._positions = dict(status.positions)
        self._progress = dict(status.progress)
        self._stalled = status.stalled
        rows = [self._rows[job_id] for job_id in touched if job_id in self._rows]
        waiting_for, since = why_waiting(status), checking_since(status)
        servers_changed = self._reread_servers()
        if servers_changed or (waiting_for, since) != (self._waiting_for, self._checking_since):
            self._waiting_for, self._checking_since = waiting_for, since
            rows = list(range(len(self._jobs)))  # every pending row says it, or stops
        self._emit_changed(rows, Column.state, Column.warning)

    def _checking(self, job: JobRecord) -> bool:
        """Whether the row's queued or running state, from before the controller started, is not
        yet confirmed by the server."""
        since = self._checking_since
        if since is None or job.state not in _ON_SERVER or job.updated_at >= since:
            return False
        return job.id not in self._positions

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

    def set_batch_names(self, names: dict[str, str]) -> None:
        """The names given to batches: the batch column shows them (the id in its tooltip)."""
        if names != self._batch_names:
            self._batch_names = dict(names)
            if self._jobs:
                column = int(Column.batch)
                self.dataChanged.emit(
                    self.index(0, column), self.index(len(self._jobs) - 1, column)
                )

    # --- Qt model interface ----------------------------------------------------------------------

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._jobs)

    def columnCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(Column) + len(self._value_keys)

    def canFetchMore(self, parent: AnyIndex) -> bool:
        return not parent.isValid() and self._backlog

    def fetchMore(self, parent: AnyIndex) -> None:
        if not parent.isValid():
            self.read_chunk()

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = 0) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < self.columnCount():
            return None
        key = self.value_key(section)
        if key is not None:
            if role == Qt.ItemDataRole.DisplayRole:
                if key not in self._value_labels:
                    self._value_labels = self._column_names(self._value_keys)
                return self._value_labels[key]
            return f"{key}: each job's own value" if role == Qt.ItemDataRole.ToolTipRole else None
        if role == Qt.ItemDataRole.DisplayRole:
            return HEADERS[Column(section)]
        if role == Qt.ItemDataRole.ToolTipRole and section == Column.warning:
            return WARNING_HEADER_TIP
        return None

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self._jobs):
            return None
        job = self._jobs[index.row()]
        if role == JOB_ROLE:
            return job
        key = self.value_key(index.column())
        if key is not None:
            return self._value_data(job, key, role)
        column = Column(index.column())
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(job, column)
        return self._decoration(job, column, role)

    def _value_data(self, job: JobRecord, key: str, role: int) -> Any:
        """A job's own value of input ``key``: in full (a colour as #3399FF), numbers to the
        right."""
        if key not in job.params:
            return None
        value = job.params[key]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return value_text(value, key in self.colours_of(job.batch))
        if role == Qt.ItemDataRole.TextAlignmentRole and value_order(value)[0] == 0:
            return int(_RIGHT)
        return None

    def _display(self, job: JobRecord, column: Column) -> str:
        match column:
            case Column.job:
                return job.id
            case Column.batch:
                return self._batch_names.get(job.batch) or job.batch
            case Column.state:
                return CHECKING if self._checking(job) else state_label(job.state)
            case Column.attempt:
                return "" if not_sent_yet(job) else str(job.attempt)
            case Column.position:
                position = self._positions.get(job.id)
                if position is None:
                    if self._waiting_for and job.state is JobState.pending:
                        return self._waiting_for[0]
                    return NO_SERVER_SHORT if job.id in self._waits else ""
                if position == 0:
                    return "stalled" if job.id in self._stalled else "running"
                return str(position)
            case Column.progress:
                progress = self._progress.get(job.id)
                return f"{progress.value}/{progress.max}" if progress else ""
            case Column.elapsed:
                seconds = self._elapsed(job)
                return "" if seconds is None else duration_text(seconds)
            case Column.reason:
                return reason_text(job.reason)
            case Column.warning:
                return "⚠" if job.warning or job.id in self._stalled else ""

    def _decoration(self, job: JobRecord, column: Column, role: int) -> Any:
        if role == Qt.ItemDataRole.BackgroundRole and column == Column.state:
            return None if self._checking(job) else state_colour(job.state)
        if role == PROGRESS_ROLE and column == Column.progress:
            progress = self._progress.get(job.id)
            return progress.fraction if progress else None
        if role == Qt.ItemDataRole.ToolTipRole:
            if self._waiting_for and job.state is JobState.pending and column in _WAIT_SHOWN:
                return self._waiting_for[1]
            if job.id in self._waits and column in _WAIT_SHOWN:
                return placing_tip(self._waits[job.id])
            if column == Column.state and self._checking(job):
                return CHECKING_TIP
            if column == Column.attempt and not_sent_yet(job):
                return NOT_SENT_TIP
            if column == Column.batch:
                batch = batch_label(job.batch, self._batch_names.get(job.batch))
                line = self.batch_line(job.batch)
                return f"Batch {batch} · {line}" if line else f"Batch {batch}"
            if column != Column.warning:
                error = self._errors.get(job.id)
                return error.short() if error else reason_text(job.reason) or None
            notes = [STALLED_NOTE] if job.id in self._stalled else []
            if job.warning:
                notes.append(f"ComfyUI took the job with a warning: {job.warning}")
            return "\n".join(notes) or None
        if role == Qt.ItemDataRole.TextAlignmentRole and column in _NUMERIC:
            return int(_RIGHT)
        return None

    def _column_key(self, column: int) -> Callable[[JobRecord], Any]:
        """A function giving each job's raw value in ``column`` (made once per sort: fast)."""
        positions, progress, now = self._positions, self._progress, time.time()
        stalled = self._stalled
        key = self.value_key(column)
        if key is not None:
            return lambda job: value_order(job.params.get(key))
        match Column(column):
            case Column.job:
                return lambda _job: 0  # creation order breaks the tie
            case Column.batch:
                return attrgetter("batch")
            case Column.state:
                return lambda job: _STATE_ORDER[job.state]
            case Column.attempt:
                return attrgetter("attempt")
            case Column.position:
                return lambda job: positions.get(job.id, 1 << 30)
            case Column.progress:
                return lambda job: p.fraction if (p := progress.get(job.id)) else -1.0
            case Column.elapsed:
                return lambda job: self._elapsed(job, now) or 0.0
            case Column.reason:
                return lambda job: reason_text(job.reason)
            case Column.warning:
                return lambda job: bool(job.warning) or job.id in stalled

    @staticmethod
    def _elapsed(job: JobRecord, now: float | None = None) -> float | None:
        """How long the current attempt ran (so far, while it runs); blank if it never ran."""
        if job.started_at is None:
            return None
        end = job.finished_at if job.state.is_terminal else None
        if end is None:
            end = time.time() if now is None else now
        return max(0.0, end - job.started_at)


_WAIT_SHOWN = frozenset({Column.state, Column.position})
_NUMERIC = frozenset({Column.attempt, Column.position, Column.elapsed})


NOT_SENT_TIP = "Not sent to ComfyUI yet: its first attempt starts when it is sent"


def not_sent_yet(job: JobRecord) -> bool:
    """Whether the job waits for its first attempt (a pending job retried has had one)."""
    return job.state is JobState.pending and job.attempt <= 1 and job.started_at is None


def values_text(
    params: dict[str, Any],
    names: Mapping[str, str] | None = None,
    colours: frozenset[str] = frozenset(),
) -> str:
    """``{"3.seed": 5, "6.text": "a cat"}`` → ``KSampler · seed=5, Positive prompt · text=a cat``
    by ``names`` (``core.batch.varied.batch_input_names``); without them by the bare input
    names (node ids only if needed): ``seed=5, text=a cat``; the inputs in ``colours`` as
    ``#3399FF``."""
    labels = input_labels(sorted(params))
    if names:
        labels = {key: names.get(key, label) for key, label in labels.items()}
    return ", ".join(
        f"{labels[key]}={value_text(params[key], key in colours)[:40]}" for key in labels
    )


def _may_be_colour(params: Mapping[str, Any]) -> bool:
    """Whether a value may be a colour (a whole number, not a seed): only then is the batch's
    workflow read for its colour inputs (a batch of seeds alone costs no read)."""
    return any(
        isinstance(value, int) and not isinstance(value, bool) and not is_seed(key)
        for key, value in params.items()
    )


def _seeds_first(key: str) -> tuple[bool, str]:
    return not is_seed(key), key


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
