"""The job ledger: the durable record of every batch, job, attempt and transition."""

from __future__ import annotations

import json
from collections import namedtuple
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, cast

from peewee import SQL, fn

from core.errors import UnknownRecord
from core.job_state import AttemptResult, JobState
from core.ledger import schema
from core.ledger.batch_notices import BatchNoticeStore
from core.ledger.controller_runs import ControllerRunStore
from core.ledger.database import make_data_folder, never_held_a_ledger
from core.ledger.handle import LedgerHandle
from core.ledger.lease import ControllerLease
from core.ledger.marks import MarkStore
from core.ledger.owners import Actor
from core.ledger.picture_index import PictureIndex
from core.ledger.records import (
    AttemptRecord,
    AttemptRow,
    BatchRecord,
    JobRecord,
    JobRow,
    NewJob,
    PendingJob,
    TransitionRecord,
)
from core.ledger.saved_searches import SavedSearchStore
from core.ledger.server_offers import ServerOfferStore
from core.ledger.server_pictures import ServerPictureStore
from core.ledger.stores import PresetStore, SettingsStore
from core.ledger.tokens import TokenStore
from core.ledger.transitions import ATTEMPT_COLUMNS, TransitionVerbs, job_row
from core.names import checked_name
from core.paths import ledger_path

if TYPE_CHECKING:
    from collections.abc import Sequence
    from contextlib import AbstractContextManager
    from pathlib import Path

    from peewee import SqliteDatabase


_JOB_COLUMNS = (
    "id, batch_id, requester, params_json, priority, state, attempt, auto_attempts, "
    "created_at, updated_at, seq"
)


class Ledger(TransitionVerbs):
    """One ledger database, opened by any number of processes; at most one is the controller.

    Every write is one short transaction (``BEGIN IMMEDIATE``), never spanning an ``await``.
    The transition verbs (``TransitionVerbs``), the queries below and the stores in attributes
    ``presets``, ``settings``, ``controller_runs``, ``tokens``, ``marks``, ``server_offers``,
    ``server_pictures``, ``picture_index`` and ``saved_searches`` share one ``LedgerHandle``,
    ``handle``.
    ``server_pictures`` and ``notices`` share one ``LedgerHandle``, ``handle``.
    """

    def __init__(self, folder: Path, *, create: bool = True) -> None:
        """Open the ledger in ``folder``; a missing one is made when ``create`` (``created``
        then says so), refused otherwise (``LedgerMissingError``)."""
        if create:
            make_data_folder(folder)
        self.folder = folder
        self.path = ledger_path(folder)
        super().__init__(LedgerHandle(self.path, create=create))
        self.created = self.handle.created
        self.lease = ControllerLease(self.path)
        if self.created:  # it outlives a deleted ledger file: the folder held one
            self.lease.path.touch(mode=0o600)
        self.presets = PresetStore(self.handle, Actor.artist())  # the artist's, locally
        self.settings = SettingsStore(self.handle)
        self.controller_runs = ControllerRunStore(self.handle)
        self.marks = MarkStore(self.handle)
        self.tokens = TokenStore(self.handle)
        self.server_offers = ServerOfferStore(self.handle)
        self.server_pictures = ServerPictureStore(self.handle)
        self.picture_index = PictureIndex(self.handle)
        self.saved_searches = SavedSearchStore(self.handle)
        self.notices = BatchNoticeStore(self.handle)

    def presets_for(self, requester: str) -> PresetStore:
        """The presets as the API requester ``requester`` sees and may change them."""
        return PresetStore(self.handle, Actor.requester(requester))

    @classmethod
    def open_existing(cls, folder: Path) -> Ledger:
        """The ledger in ``folder``, made only on a first start: when the folder holds nothing
        of a ledger (``never_held_a_ledger``); one deleted or moved away is refused rather than
        silently replaced by an empty one. Every command and the window open it so."""
        return cls(folder, create=never_held_a_ledger(ledger_path(folder)))

    def close(self) -> None:
        self.lease.release()
        self.handle.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- plumbing ------------------------------------------------------------------------------

    def thread_connection(self) -> AbstractContextManager[None]:
        """A connection of the calling thread's own (``LedgerHandle.thread_connection``)."""
        return self.handle.thread_connection()

    def now(self) -> float:
        return self.handle.now()

    # --- batches and jobs ----------------------------------------------------------------------

    def create_batch(
        self,
        preset_name: str,
        jobs: Sequence[NewJob],
        *,
        requester: str,
        priority: int = 0,
        spec: dict[str, Any] | None = None,
        name: str | None = None,
    ) -> tuple[BatchRecord, list[str]]:
        """Create a batch of the named preset and its jobs, all pending, in one transaction;
        ``name`` is the artist's for it (none: the batch is known by its id)."""
        for who in {requester, *(job.requester for job in jobs if job.requester)}:
            checked_name(who, "a requester")
        now = self.handle.now()
        with self.handle.tx():
            preset = self.presets.row(preset_name)
            date = datetime.fromtimestamp(now, UTC).strftime("%Y%m%d")
            batch_id = _format_id("batch", date, self.handle.allocate(f"batch_{date}"))
            schema.Batch.create(
                id=batch_id,
                preset=preset.name,
                workflow=preset.workflow_hash,
                requester=requester,
                priority=priority,
                spec_json=json.dumps(spec or {}),
                created_at=now,
                name=_batch_name(name),
            )
            job_ids = self._insert_jobs(batch_id, date, jobs, requester, priority, now)
        return self.batch(batch_id), job_ids

    def add_jobs(self, batch_id: str, jobs: Sequence[NewJob]) -> list[str]:
        """Add jobs to an existing batch (e.g. "retry smaller"), pending, in one transaction."""
        now = self.handle.now()
        with self.handle.tx():
            batch = schema.Batch.get_or_none(schema.Batch.id == batch_id)
            if batch is None:
                raise UnknownRecord(f"no batch {batch_id!r}")
            date = datetime.fromtimestamp(now, UTC).strftime("%Y%m%d")
            return self._insert_jobs(batch_id, date, jobs, batch.requester, batch.priority, now)

    def _insert_jobs(
        self,
        batch_id: str,
        date: str,
        jobs: Sequence[NewJob],
        requester: str,
        priority: int,
        now: float,
    ) -> list[str]:
        first = self.handle.allocate(f"job_{date}", len(jobs))
        seq = self.handle.next_seq(len(jobs))
        ids = [_format_id("job", date, first + i) for i in range(len(jobs))]
        rows = [
            (
                job_id,
                batch_id,
                job.requester or requester,
                json.dumps(job.params, sort_keys=True),
                priority if job.priority is None else job.priority,
                JobState.pending.value,
                1,
                1,
                now,
                now,
                seq + i,
            )
            for i, (job_id, job) in enumerate(zip(ids, jobs, strict=True))
        ]
        self.handle.database.cursor().executemany(
            f"INSERT INTO job ({_JOB_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?)", rows
        )
        return ids

    def batch(self, batch_id: str) -> BatchRecord:
        with self.handle.read():
            row = schema.Batch.get_or_none(schema.Batch.id == batch_id)
            if row is None:
                raise UnknownRecord(f"no batch {batch_id!r}")
            return _batch_record(row)

    def name_batch(self, batch_id: str, name: str | None) -> BatchRecord:
        """Give the batch a name (None or blank: none); returns the batch as renamed.

        Raises:
            UnknownRecord: no such batch.
            InputError: the name breaks a rule of ``core.names.checked_name``.
        """
        stored = _batch_name(name)
        with self.handle.tx():
            changed = schema.Batch.update(name=stored).where(schema.Batch.id == batch_id).execute()
            if not changed:
                raise UnknownRecord(f"no batch {batch_id!r}")
        return self.batch(batch_id)

    def batches(self) -> list[BatchRecord]:
        with self.handle.read():
            return [_batch_record(r) for r in schema.Batch.select().order_by(schema.Batch.id)]

    def workflow(self, workflow_hash: str) -> dict[str, Any]:
        """The API workflow stored under ``workflow_hash``."""
        with self.handle.read():
            row = schema.Workflow.get_or_none(schema.Workflow.hash == workflow_hash)
            if row is None:
                raise UnknownRecord(f"no workflow {workflow_hash}")
            result: dict[str, Any] = json.loads(row.api_json)
            return result

    def job(self, job_id: str) -> JobRecord:
        with self.handle.read():
            return JobRecord.from_row(job_row(job_id))

    def jobs(
        self,
        *,
        batch: str | None = None,
        states: Sequence[JobState] | None = None,
        requester: str | None = None,
        after: str | None = None,
        limit: int | None = None,
    ) -> list[JobRecord]:
        """Jobs in creation order, optionally of one batch, in some states, of one requester;
        a page of them: the first ``limit`` created after the job ``after`` (which must exist:
        `UnknownRecord` otherwise)."""
        with self.handle.read():
            query = _filtered(schema.Job.select(*_JOB_ROW), batch, states, requester)
            if after is not None:
                query = query.where(SQL("rowid") > self._rowid(after))
            query = query.order_by(SQL("rowid"))
            if limit is not None:
                query = query.limit(limit)
            return _job_records(self.handle.database.execute(query))

    def _rowid(self, job_id: str) -> int:
        row = schema.Job.select(SQL("rowid")).where(schema.Job.id == job_id).tuples().first()
        if row is None:
            raise UnknownRecord(f"no job {job_id!r}")
        return int(row[0])

    def job_ids(
        self,
        *,
        batch: str | None = None,
        states: Sequence[JobState] | None = None,
        among: Sequence[str] | None = None,
    ) -> list[str]:
        """The ids of ``jobs(batch=..., states=...)``, or of those ``among`` the given ids that
        exist: cheap over thousands, for bulk commands."""
        clauses, params = ["1"], []
        if batch is not None:
            clauses.append("batch_id = ?")
            params.append(batch)
        if states is not None:
            clauses.append("state IN (SELECT value FROM json_each(?))")
            params.append(json.dumps([state.value for state in states]))
        if among is not None:
            clauses.append("id IN (SELECT value FROM json_each(?))")
            params.append(json.dumps(list(among)))
        sql = f"SELECT id FROM job WHERE {' AND '.join(clauses)} ORDER BY rowid"
        with self.handle.read():  # a plain statement: the controller asks it every tick
            return [job_id for (job_id,) in self.handle.database.execute_sql(sql, params)]

    def count_by_state(
        self,
        batch: str | None = None,
        requester: str | None = None,
        *,
        states: Sequence[JobState] | None = None,
    ) -> dict[JobState, int]:
        """How many jobs are in each state (of one batch, of one requester; only ``states``,
        when given: an index search over those jobs alone, however many others there are)."""
        with self.handle.read():
            query = schema.Job.select(schema.Job.state, fn.COUNT(SQL("*")).alias("n"))
            query = _filtered(query, batch, states, requester)
            rows = cast("list[tuple[str, int]]", list(query.group_by(schema.Job.state).tuples()))
            return {JobState(state): n for state, n in rows}

    def attempts(self, job_id: str) -> list[AttemptRecord]:
        return self.attempts_of([job_id]).get(job_id, [])

    def attempts_of(self, job_ids: Sequence[str]) -> dict[str, list[AttemptRecord]]:
        """The attempts of each of ``job_ids`` (in order), in a few queries however many jobs."""
        found: dict[str, list[AttemptRecord]] = {}
        with self.handle.read():
            for row in _named_rows(self.handle.database, _ATTEMPTS_OF, job_ids):
                found.setdefault(row.job_id, []).append(AttemptRecord.from_row(row))
        return found

    def attempt(self, prompt_id: str) -> AttemptRecord | None:
        with self.handle.read():
            row = schema.Attempt.get_or_none(schema.Attempt.prompt_id == prompt_id)
            return AttemptRecord.from_row(row) if row else None

    def recent_run_seconds(self, limit: int) -> list[float]:
        """How long the last ``limit`` succeeded attempts ran (started to finished), newest
        first; read through the result index, cheap however long the ledger."""
        attempt = schema.Attempt
        with self.handle.read():
            query = (
                attempt.select(attempt.started_at, attempt.finished_at)
                .where(
                    attempt.result == AttemptResult.succeeded.value,
                    attempt.started_at.is_null(False),
                    attempt.finished_at.is_null(False),
                )
                .order_by(attempt.id.desc())
                .limit(limit)
            )
            rows = cast("list[tuple[float, float]]", list(query.tuples()))
        return [max(0.0, finished - started) for started, finished in rows]

    def live_attempts(self) -> list[AttemptRecord]:
        """What the controller must follow on the server: the current attempts that are not
        final, and the successes whose pictures are still to be fetched (``fetching``)."""
        live = [result.value for result in AttemptResult if not result.is_final]
        with self.handle.read():  # a plain statement: read every tick
            return _attempts(self.handle.database, _LIVE_ATTEMPTS, json.dumps(live))

    def unsettled_attempts(self, reasons: Sequence[str]) -> list[AttemptRecord]:
        """Older attempts given up as ``lost`` for one of ``reasons`` whose job is still active:
        their prompt may yet reach the server, so the controller keeps watching for it."""
        active = [state.value for state in JobState if state.is_active]
        with self.handle.read():  # a plain statement: read every tick
            params = (json.dumps(list(reasons)), json.dumps(active))
            return _attempts(self.handle.database, _UNSETTLED, *params)

    def transitions(self, job_id: str) -> list[TransitionRecord]:
        return self.transitions_of([job_id]).get(job_id, [])

    def transitions_of(self, job_ids: Sequence[str]) -> dict[str, list[TransitionRecord]]:
        """The transitions of each of ``job_ids`` (oldest first), in a few queries."""
        found: dict[str, list[TransitionRecord]] = {}
        with self.handle.read():
            for row in _named_rows(self.handle.database, _TRANSITIONS_OF, job_ids):
                found.setdefault(row.job_id, []).append(TransitionRecord.from_row(row))
        return found

    # --- admission queries ---------------------------------------------------------------------

    def pending_lines(self, depth: int) -> dict[str, list[str]]:
        """Per requester, its first ``depth`` unsent pending jobs (higher priority first).

        Index seeks only (job_pending_line), so a 100,000-job backlog costs what 3 jobs do.
        """
        lines: dict[str, list[str]] = {}
        database = self.handle.database
        with self.handle.read():
            for (requester,) in database.execute_sql(_REQUESTERS_WAITING).fetchall():
                rows = database.execute_sql(_LINE_OF_REQUESTER, (requester, depth)).fetchall()
                lines[requester] = [job_id for (job_id,) in rows]
        return {requester: ids for requester, ids in lines.items() if ids}

    def pending_line(self, requester: str, depth: int, skip: int = 0) -> list[PendingJob]:
        """``requester``'s unsent pending jobs in admission's order, from the ``skip``-th, at
        most ``depth``, with what placement reads of them (batch, values as stored)."""
        with self.handle.read():
            rows = self.handle.database.execute_sql(
                _LINE_WITH_VALUES, (requester, depth, skip)
            ).fetchall()
        return [PendingJob(*row) for row in rows]

    def requesters_waiting(self) -> list[str]:
        """The requesters with a pending job, in name order (index seeks only)."""
        with self.handle.read():
            rows = self.handle.database.execute_sql(_REQUESTERS_WAITING).fetchall()
        return [requester for (requester,) in rows]

    def last_job_sent_to(self, server: str) -> JobRecord | None:
        """The job of the attempt last sent to ``server`` (what it has loaded), None if none."""
        with self.handle.read():
            row = (
                schema.Attempt.select(schema.Attempt.job)
                .where(schema.Attempt.server == server)
                .order_by(SQL("rowid").desc())
                .tuples()
                .first()
            )
            return None if row is None else JobRecord.from_row(job_row(row[0]))

    def in_flight_by_requester(
        self, server: str | None = None, left: Sequence[str] = ()
    ) -> dict[str, int]:
        """Per requester, jobs sent to ComfyUI (``server``, or any) and not finished (incl.
        being sent), but those whose prompt is among ``left``: gone from the server's queue,
        not yet recorded as finished."""
        counts: dict[str, int] = {}
        database = self.handle.database
        gone = json.dumps(list(left))
        with self.handle.read():
            for sql, params in (
                (_IN_FLIGHT_SENT, (server, server, gone)),
                (_IN_FLIGHT_SENDING, (server, server)),
            ):
                for requester, n in database.execute_sql(sql, params).fetchall():
                    counts[requester] = counts.get(requester, 0) + int(n)
        return counts

    def has_active_jobs(self) -> bool:
        """Whether any job is pending, queued, running or cancelling (an index seek)."""
        active = [state.value for state in JobState if state.is_active]
        with self.handle.read():
            cursor = self.handle.database.execute_sql(_ANY_ACTIVE, (json.dumps(active),))
            return cursor.fetchone() is not None

    def waiting_jobs(self) -> list[tuple[str, str, int]]:
        """Every pending job not being sent, as (id, requester, priority): each requester's
        line in admission's order (higher priority first, then oldest), for the waiting line.
        One pass over the pending line index."""
        with self.handle.read():
            rows = self.handle.database.execute_sql(_WAITING_JOBS).fetchall()
        return [(job_id, requester, int(priority)) for job_id, requester, priority in rows]

    def unfinished_count(self, requester: str | None = None) -> int:
        """How many jobs (of one requester) are pending, queued, running or cancelling: an
        index search over those alone, however many jobs have finished."""
        active = [state for state in JobState if state.is_active]
        return sum(self.count_by_state(requester=requester, states=active).values())

    # --- change feed ---------------------------------------------------------------------------

    def changes_since(
        self, seq: int, limit: int = 5000, requester: str | None = None
    ) -> tuple[list[JobRecord], int]:
        """Jobs written after feed position ``seq`` (by any process), of one requester when
        given, and the position reached.

        Call again with the returned position to follow the ledger without rescanning it. The
        requester is filtered in the query, walking the feed's index from ``seq`` to the
        latest change: a requester with none of the changes costs one pass over them, not one
        row built a change.
        """
        with self.handle.read():
            if requester is None:
                query = schema.Job.select(*_JOB_ROW).where(schema.Job.seq > seq)
                jobs = _job_records(
                    self.handle.database.execute(query.order_by(schema.Job.seq).limit(limit))
                )
                return jobs, (jobs[-1].seq if jobs else seq)
            (latest,) = self.handle.database.execute_sql(_LATEST_SEQ).fetchone()
            cursor = self.handle.database.execute_sql(
                _CHANGES_OF_REQUESTER, (min(seq, latest), latest, requester, limit)
            )
            jobs = _job_records(cursor)
        if len(jobs) == limit:
            return jobs, jobs[-1].seq
        return jobs, max(seq, int(latest))

    def latest_seq(self) -> int:
        with self.handle.read():  # a plain statement: the change feed reads it ten times a second
            (seq,) = self.handle.database.execute_sql(_LATEST_SEQ).fetchone()
            return int(seq)


# A job's columns in `JobRow`'s order: a query selecting them is read as plain rows, not as
# model instances or peewee's named tuples (each costs twice as much; a batch's 100 jobs are
# read each time the library reaches it).
_JOB_ROW = [SQL(column) for column in JobRow._fields]


def _job_records(cursor: Any) -> list[JobRecord]:
    return [JobRecord.from_row(JobRow._make(values)) for values in cursor.fetchall()]


def _filtered(
    query: Any, batch: str | None, states: Sequence[JobState] | None, requester: str | None
) -> Any:
    """A job query narrowed to one batch, some states, one requester (each when given)."""
    if batch is not None:
        query = query.where(schema.Job.batch == batch)
    if states is not None:
        query = query.where(schema.Job.state.in_([s.value for s in states]))
    if requester is not None:
        query = query.where(schema.Job.requester == requester)
    return query


def _attempts(database: SqliteDatabase, sql: str, *params: Any) -> list[AttemptRecord]:
    """The attempts ``sql`` selects (``ATTEMPT_COLUMNS``, in that order)."""
    rows = database.execute_sql(sql, params).fetchall()
    return [AttemptRecord.from_row(AttemptRow._make(values)) for values in rows]


def _named_rows(database: SqliteDatabase, sql: str, ids: Sequence[str]) -> list[Any]:
    """The rows of ``sql`` (one JSON array parameter: ``ids``) as named tuples, their fields
    named by the columns: no peewee query to build, which cost more than SQLite's work."""
    cursor = database.execute_sql(sql, (json.dumps(list(ids)),))
    row = namedtuple("row", [column for column, *_ in cursor.description])  # type: ignore[misc]
    return [row(*values) for values in cursor.fetchall()]


# Distinct requesters with pending jobs, one index seek each (a "loose index scan").
_REQUESTERS_WAITING = """
    WITH RECURSIVE waiting(requester) AS (
      SELECT MIN(requester) FROM job WHERE state = 'pending'
      UNION ALL
      SELECT (SELECT MIN(requester) FROM job
              WHERE state = 'pending' AND requester > waiting.requester)
      FROM waiting WHERE waiting.requester IS NOT NULL)
    SELECT requester FROM waiting WHERE requester IS NOT NULL"""

# One requester's line: higher priority first, then creation order; jobs being sent are skipped.
_LINE_OF_REQUESTER = """
    SELECT id FROM job INDEXED BY job_pending_line
    WHERE state = 'pending' AND requester = ? AND NOT EXISTS (
      SELECT 1 FROM attempt WHERE attempt.job_id = job.id AND attempt.n = job.attempt)
    ORDER BY priority DESC, rowid LIMIT ?"""

_LINE_WITH_VALUES = """
    SELECT id, batch_id, params_json, priority FROM job INDEXED BY job_pending_line
    WHERE state = 'pending' AND requester = ? AND NOT EXISTS (
      SELECT 1 FROM attempt WHERE attempt.job_id = job.id AND attempt.n = job.attempt)
    ORDER BY priority DESC, rowid LIMIT ? OFFSET ?"""

_WAITING_JOBS = """
    SELECT id, requester, priority FROM job INDEXED BY job_pending_line
    WHERE state = 'pending' AND NOT EXISTS (
      SELECT 1 FROM attempt WHERE attempt.job_id = job.id AND attempt.n = job.attempt)
    ORDER BY requester, priority DESC, rowid"""

_IN_FLIGHT_SENT = """
    SELECT job.requester, COUNT(*) FROM job JOIN attempt
      ON attempt.job_id = job.id AND attempt.n = job.attempt
    WHERE job.state IN ('queued', 'running', 'cancelling') AND (? IS NULL OR attempt.server = ?)
      AND attempt.prompt_id NOT IN (SELECT value FROM json_each(?))
    GROUP BY job.requester"""

# What the controller reads every tick (or more often), as plain statements: building peewee's
# queries cost more than running them. Lists of values are JSON array parameters.
# The current attempts not yet ended, and the successes whose pictures are still to be
# fetched (their job is running or cancelling: few rows, found through the state index; one
# whose pictures were gone no longer holds their references).
_LIVE_ATTEMPTS = f"""
    SELECT {ATTEMPT_COLUMNS} FROM attempt JOIN job ON attempt.job_id = job.id
    WHERE attempt.n = job.attempt AND attempt.result IN (SELECT value FROM json_each(?))
    UNION ALL
    SELECT {ATTEMPT_COLUMNS} FROM job CROSS JOIN attempt ON attempt.job_id = job.id
    WHERE job.state IN ('running', 'cancelling') AND attempt.result = 'succeeded'
      AND attempt.refs_json IS NOT NULL
    ORDER BY 1"""
_UNSETTLED = f"""
    SELECT {ATTEMPT_COLUMNS} FROM attempt JOIN job ON attempt.job_id = job.id
    WHERE attempt.result = 'lost' AND attempt.reason IN (SELECT value FROM json_each(?))
      AND attempt.n < job.attempt AND job.state IN (SELECT value FROM json_each(?))
    ORDER BY attempt.id"""
_ATTEMPTS_OF = """
    SELECT * FROM attempt WHERE job_id IN (SELECT value FROM json_each(?)) ORDER BY job_id, n"""
_TRANSITIONS_OF = """
    SELECT * FROM transition WHERE job_id IN (SELECT value FROM json_each(?)) ORDER BY id"""
_ANY_ACTIVE = "SELECT 1 FROM job WHERE state IN (SELECT value FROM json_each(?)) LIMIT 1"
_LATEST_SEQ = "SELECT COALESCE(MAX(seq), 0) FROM job"
# One requester's changes in a stretch of the feed, along the feed's index (the requester's
# index would sort all of that requester's jobs for each page).
_CHANGES_OF_REQUESTER = f"""
    SELECT {", ".join(JobRow._fields)} FROM job INDEXED BY job_seq
    WHERE seq > ? AND seq <= ? AND requester = ? ORDER BY seq LIMIT ?"""

# Pending jobs whose current attempt is being sent (prompt_id written, no answer yet); CROSS JOIN
# makes SQLite start from the few submitting attempts, not from every pending job.
_IN_FLIGHT_SENDING = """
    SELECT job.requester, COUNT(*) FROM attempt CROSS JOIN job ON attempt.job_id = job.id
    WHERE attempt.result = 'submitting' AND attempt.n = job.attempt AND job.state = 'pending'
      AND (? IS NULL OR attempt.server = ?)
    GROUP BY job.requester"""


def _format_id(family: str, date: str, counter: int) -> str:
    return f"{family}_{date}_{counter:04d}"


def _batch_record(row: schema.Batch) -> BatchRecord:
    return BatchRecord(
        id=row.id,
        preset=row.preset,
        workflow_hash=row.workflow_hash,
        requester=row.requester,
        priority=row.priority,
        spec=json.loads(row.spec_json),
        created_at=row.created_at,
        name=row.name,
    )


def _batch_name(name: str | None) -> str | None:
    """A batch name as stored: trimmed, None for none; checked (``checked_name``)."""
    name = (name or "").strip() or None
    return None if name is None else checked_name(name, "a batch")
