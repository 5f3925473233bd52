"""The named verbs that move jobs and attempts, checked against the transition table.

Two kinds of verbs:
- *observations* (``observe_*``) report what ComfyUI said about a prompt_id. A stale, duplicate
  or backward observation, or one about an older attempt's prompt_id, changes nothing and
  returns False.
- *commands* (``submit_attempt``, ``request_cancel``, ``retry``) are asked for by a person or
  the controller; a command the table forbids raises IllegalTransition. Their bulk forms
  (``request_cancel_many``, ``retry_many``) act on many jobs in one transaction and return a
  ``Refused`` for each job they could not act on.

Each verb is one transaction that writes the attempt, the job (with a new change-feed position)
and, when the job's state changes, one row in the transitions table.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from core.errors import CapReached, DispatchPaused, IllegalTransition, UnknownRecord
from core.job_state import (
    AttemptResult,
    JobState,
    Reason,
    can_transition,
    is_forward,
    result_is_forward,
)
from core.ledger import schema
from core.ledger.attempt_error import AttemptError, ErrorKind
from core.ledger.picture_index import index_job
from core.ledger.records import (
    AttemptRecord,
    AttemptRow,
    JobRecord,
    JobRow,
    Refused,
    RequesterCap,
)
from core.ledger.stores import dispatch_paused
from core.ledger.text_limits import bounded, bounded_text

if TYPE_CHECKING:
    from collections.abc import Sequence

    from core.ledger.handle import LedgerHandle

DEFAULT_MAX_ATTEMPTS = 3
# The current attempt's run times, copied onto the job so a table can show them row by row.
_TIME_FIELDS = ("started_at", "finished_at")
_NO_TIMES = {"started_at": None, "finished_at": None}
_T = TypeVar("_T")


class TransitionVerbs:
    """The state-changing half of the Ledger (its base), working on the ledger's ``handle``."""

    def __init__(self, handle: LedgerHandle) -> None:
        self.handle = handle

    # --- commands ------------------------------------------------------------------------------

    def submit_attempt(
        self,
        job_id: str,
        prompt_id: str,
        server: str,
        workflow_hash: str,
        cap: RequesterCap | None = None,
        placed_because: str = "",
    ) -> AttemptRecord:
        """Record the current attempt's prompt_id (result ``submitting``) before it is sent,
        with why it goes to ``server`` (``placed_because``, shown in the details and `show`).

        The rules a submission obeys are checked here, in its own transaction, whatever the
        caller read before: the job is pending with its current attempt not yet sent,
        dispatch is not paused, and its requester is within ``cap`` on ``server``.

        Raises:
            DispatchPaused: dispatch is paused (nothing is written).
            CapReached: the requester has ``cap.limit`` jobs in flight on ``server``.
            IllegalTransition: the job is not pending, or its attempt was sent already.
        """
        with self.handle.tx():
            if dispatch_paused():
                raise DispatchPaused(f"dispatch is paused: job {job_id} not submitted")
            job = job_row(job_id)
            if job.state != JobState.pending:
                raise IllegalTransition(f"job {job_id} is {job.state}, not pending: not submitted")
            if _current_attempt(job) is not None:
                raise IllegalTransition(f"job {job_id} attempt {job.attempt} was already sent")
            if cap is not None and _in_flight(job.requester, server, cap.gone) >= cap.limit:
                raise CapReached(
                    f"{job.requester} has {cap.limit} jobs in flight on {server}: "
                    f"job {job_id} not submitted"
                )
            row = AttemptRow(
                id=0,
                job_id=job.id,
                n=job.attempt,
                prompt_id=prompt_id,
                server=server,
                number=None,
                result=AttemptResult.submitting.value,
                reason=None,
                error_json=None,
                workflow_hash=workflow_hash,
                stalled=0,
                created_at=self.handle.now(),
                placed_because=placed_because or None,
            )
            cursor = schema.database_proxy.execute_sql(_INSERT_ATTEMPT, row[1:])
            self._write_job(job, None, "")
            return AttemptRecord.from_row(row._replace(id=cursor.lastrowid))

    def request_cancel(self, job_id: str) -> JobState:
        """Cancel one job (see ``request_cancel_many``); returns its new state.

        Raises IllegalTransition for a job already finished, UnknownRecord for no such job.
        """
        return _carried_out(self.request_cancel_many([job_id])[job_id])

    def request_cancel_many(self, job_ids: Sequence[str]) -> dict[str, JobState | Refused]:
        """Cancel jobs in one transaction: each at once if nothing was sent, else ``cancelling``
        until ComfyUI confirms.

        Returns each job's new state, or why it was refused (already finished, no such job).
        """
        outcome: dict[str, JobState | Refused] = {}
        unsent: list[_Found] = []
        sent: list[_Found] = []
        with self.handle.tx():
            for job_id, job in _find(job_ids).items():
                if job is None:
                    outcome[job_id] = Refused(UnknownRecord(f"no job {job_id!r}"))
                elif job.state == JobState.cancelling:
                    outcome[job_id] = JobState.cancelling
                elif not job.state.can_cancel:
                    error = IllegalTransition(
                        f"job {job_id} already {job.state}: nothing to cancel"
                    )
                    outcome[job_id] = Refused(error)
                elif job.state == JobState.pending and not job.sent:
                    unsent.append(job)
                    outcome[job_id] = JobState.cancelled
                else:
                    sent.append(job)
                    outcome[job_id] = JobState.cancelling
            self._move(
                unsent,
                JobState.cancelled,
                "cancelled before it was sent",
                reason=Reason.cancelled.value,
                finished_at=self.handle.now(),
            )
            self._move(sent, JobState.cancelling, "cancel requested")
        return outcome

    def retry(self, job_id: str) -> JobRecord:
        """Manual retry of one job (see ``retry_many``); returns the job as it is now.

        Raises IllegalTransition unless the job failed or was cancelled, UnknownRecord for no
        such job.
        """
        with self.handle.tx():
            _carried_out(self.retry_many([job_id])[job_id])
            return JobRecord.from_row(job_row(job_id))

    def retry_many(self, job_ids: Sequence[str]) -> dict[str, int | Refused]:
        """Manual retry of failed or cancelled jobs in one transaction: each opens its next
        attempt, back to pending, with a fresh automatic budget.

        Returns each job's new attempt number, or why it was refused (not failed or cancelled,
        no such job).
        """
        outcome: dict[str, int | Refused] = {}
        retried: list[_Found] = []
        with self.handle.tx():
            for job_id, job in _find(job_ids).items():
                if job is None:
                    outcome[job_id] = Refused(UnknownRecord(f"no job {job_id!r}"))
                elif job.state.can_retry:
                    retried.append(job)
                    outcome[job_id] = job.attempt + 1
                else:
                    error = IllegalTransition(
                        f"job {job_id} is {job.state}: only failed or cancelled jobs can be retried"
                    )
                    outcome[job_id] = Refused(error)
            self._move(
                retried,
                JobState.pending,
                "manual retry as attempt {attempt}",
                next_attempt=True,
                auto_attempts=1,
                reason=None,
                warning=None,
                **_NO_TIMES,
            )
        return outcome

    # --- observations --------------------------------------------------------------------------

    def observe_queued(
        self, prompt_id: str, number: float | None = None, warning: str | None = None
    ) -> bool:
        extra = {"warning": bounded_text(warning)} if warning else {}
        fields: dict[str, Any] = {"queued_at": self.handle.now()}
        if number is not None:
            fields["number"] = number
        return self._observe(
            prompt_id,
            AttemptResult.queued,
            JobState.queued,
            "accepted by ComfyUI",
            attempt_fields=fields,
            job_fields=extra,
        )

    def observe_running(self, prompt_id: str) -> bool:
        return self._observe(
            prompt_id,
            AttemptResult.running,
            JobState.running,
            "started running",
            attempt_fields={"started_at": self.handle.now()},
        )

    def observe_succeeded(
        self,
        prompt_id: str,
        refs: Sequence[dict[str, Any]],
        note: str = "",
        times: tuple[float | None, float | None] = (None, None),
    ) -> bool:
        """The attempt succeeded on the server, leaving its pictures at ``refs`` (ComfyUI's
        image references; ``note`` says what of them is left out): recorded before they are
        fetched, since a restart of ComfyUI forgets its history but not its output folder.
        The job runs on (``running``, or ``cancelling``) until ``observe_fetched``;
        ``times`` are the server's (started, finished) when known."""
        refs_json = json.dumps({"images": list(refs), "note": bounded_text(note)})
        return self._observe(
            prompt_id,
            AttemptResult.succeeded,
            JobState.running,
            "finished on the server: fetching its pictures",
            attempt_fields={"refs_json": refs_json, **self._times(times)},
        )

    def observe_fetched(self, prompt_id: str, outputs: list[str], note: str = "") -> bool:
        """The pictures of a recorded success are in the output folder (``outputs``, local
        paths; ``note``: what went wrong with some): the job has succeeded."""
        with self.handle.tx():
            found = self._fetching(prompt_id)
            if found is None:
                return False
            attempt, job = found
            _update("attempt", attempt.id, {"outputs_json": json.dumps(outputs)})
            if job.state == JobState.cancelling:
                cause = "finished before the cancel landed"
            elif attempt.n < job.attempt:
                cause = f"attempt {attempt.n}, answered late, succeeded first"
            else:
                cause = "finished"
            notes = "; ".join(n for n in (_refs_note(attempt), note) if n)
            times = {"started_at": attempt.started_at, "finished_at": attempt.finished_at}
            self._write_job(
                job,
                JobState.succeeded,
                f"{cause}{': ' + bounded_text(notes) if notes else ''}",
                reason=None,
                **times,
            )
            index_job(job.id, outputs, attempt.server)  # found by the picture search from now
            return True

    def observe_outputs_gone(
        self, prompt_id: str, message: str, max_attempts: int = DEFAULT_MAX_ATTEMPTS
    ) -> bool:
        """A recorded success whose pictures the server no longer has (its output folder was
        emptied, or it is another server now): the job says so and goes on as after a lost
        prompt: its next attempt while the automatic budget lasts, else it fails; a job being
        cancelled is cancelled."""
        with self.handle.tx():
            found = self._fetching(prompt_id)
            if found is None:
                return False
            attempt, job = found
            error = _stored(AttemptError(ErrorKind.outputs_gone, message))
            reason = Reason.outputs_gone
            # Its references go: they name nothing now (and it is no longer to be fetched).
            fields = {"reason": reason.value, "error_json": error, "refs_json": None}
            _update("attempt", attempt.id, fields)
            self._next_attempt_or_end(job, reason, max_attempts)
            return True

    def observe_output_refused(self, prompt_id: str, message: str) -> bool:
        """A recorded success whose pictures have nowhere safe to go (its batch folder is a
        link, or not a folder): the job fails with ``message``, never retried automatically
        (another attempt would meet the same folder); its pictures stay on the server and its
        references on record. A job being cancelled is cancelled."""
        with self.handle.tx():
            found = self._fetching(prompt_id)
            if found is None:
                return False
            attempt, job = found
            reason = Reason.output_refused
            error = _stored(AttemptError(ErrorKind.output_refused, message))
            _update("attempt", attempt.id, {"reason": reason.value, "error_json": error})
            cancelled = job.state == JobState.cancelling
            self._write_job(
                job,
                JobState.cancelled if cancelled else JobState.failed,
                f"{reason.value}: {bounded_text(message)}",
                reason=Reason.cancelled.value if cancelled else reason.value,
                finished_at=self.handle.now(),
            )
            return True

    def _fetching(self, prompt_id: str) -> tuple[AttemptRow, JobRow] | None:
        """The recorded success of ``prompt_id`` whose pictures are still to be fetched."""
        attempt = _one(AttemptRow, _ATTEMPT_OF_PROMPT, prompt_id)
        if attempt is None or attempt.result != AttemptResult.succeeded.value:
            return None
        job = job_row(attempt.job_id)
        if attempt.refs_json is None:
            return None  # no success recorded this way, or its pictures were gone
        return None if JobState(job.state).is_terminal else (attempt, job)

    def observe_failed(
        self,
        prompt_id: str,
        reason: Reason,
        error: AttemptError | None = None,
        times: tuple[float | None, float | None] = (None, None),
    ) -> bool:
        """The attempt failed for a cause that is never retried automatically."""
        return self._observe(
            prompt_id,
            AttemptResult.failed,
            JobState.failed,
            reason.value,
            attempt_fields={**_ending(self.handle.now(), reason, error), **self._times(times)},
            job_fields={"reason": reason.value},
        )

    def observe_cancelled(
        self,
        prompt_id: str,
        reason: Reason = Reason.cancelled,
        times: tuple[float | None, float | None] = (None, None),
    ) -> bool:
        return self._observe(
            prompt_id,
            AttemptResult.cancelled,
            JobState.cancelled,
            reason.value,
            attempt_fields={**_ending(self.handle.now(), reason, None), **self._times(times)},
            job_fields={"reason": reason.value},
        )

    def observe_retryable(
        self,
        prompt_id: str,
        result: AttemptResult,
        reason: Reason,
        error: AttemptError | None = None,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    ) -> bool:
        """The attempt ended ``lost`` or ``failed`` for a cause retried automatically.

        The job goes back to pending as the next attempt while its automatic budget lasts, else
        it fails. A job being cancelled is cancelled instead: its prompt is gone, as asked.
        """
        with self.handle.tx():
            found = self._live(prompt_id, result)
            if found is None:
                return False
            attempt, job = found
            _end_attempt(attempt, result, _ending(self.handle.now(), reason, error))
            self._next_attempt_or_end(job, reason, max_attempts)
            return True

    def _next_attempt_or_end(
        self, job: JobRow, reason: Reason, max_attempts: int = DEFAULT_MAX_ATTEMPTS
    ) -> None:
        """After an attempt that ended for a cause retried automatically: the job's next
        attempt while its budget lasts, else it fails; a job being cancelled is cancelled."""
        if job.state == JobState.cancelling:
            self._write_job(
                job,
                JobState.cancelled,
                f"{reason.value} while cancelling",
                reason=Reason.cancelled.value,
                finished_at=self.handle.now(),
            )
        elif job.auto_attempts < max_attempts:
            n = job.attempt + 1
            self._write_job(
                job,
                JobState.pending,
                f"{reason.value}: retried as attempt {n}",
                attempt=n,
                auto_attempts=job.auto_attempts + 1,
                **_NO_TIMES,
            )
        else:
            self._write_job(
                job,
                JobState.failed,
                f"{reason.value}: gave up after {job.auto_attempts} attempts",
                reason=reason.value,
                finished_at=self.handle.now(),
            )

    def set_stalled(self, prompt_id: str, stalled: bool) -> bool:
        """Flag (or clear) a running attempt as running beyond the stall limit."""
        with self.handle.tx():
            found = self._live(prompt_id, None)
            if found is None or found[0].stalled == stalled:
                return False
            attempt, job = found
            _update("attempt", attempt.id, {"stalled": stalled})
            self._write_job(job, None, "")
            return True

    def _times(self, times: tuple[float | None, float | None]) -> dict[str, float]:
        """started_at / finished_at from the server when known (finished defaults to now)."""
        started, finished = times
        fields = {"finished_at": finished if finished is not None else self.handle.now()}
        if started is not None:
            fields["started_at"] = started
        return fields

    # --- unknown outcomes ----------------------------------------------------------------------

    def note_unknown_outcome(self, prompt_id: str, reason: Reason, error: AttemptError) -> bool:
        """The POST of a ``submitting`` attempt got no usable answer: record why (``error``, of
        kind ``unknown_outcome``), so the job's story tells it; the attempt stays
        ``submitting`` while its prompt_id is looked up."""
        with self.handle.tx():
            found = self._live(prompt_id, None)
            if found is None or found[0].result != AttemptResult.submitting.value:
                return False
            attempt, job = found
            _update("attempt", attempt.id, {"reason": reason.value, "error_json": _stored(error)})
            self._write_job(job, None, "")
            return True

    def observe_late_success(
        self,
        prompt_id: str,
        refs: Sequence[dict[str, Any]],
        note: str = "",
        times: tuple[float | None, float | None] = (None, None),
    ) -> bool:
        """An older attempt given up as ``lost`` (its answer never came) succeeded after all.

        Its pictures are the job's: the attempt becomes ``succeeded`` with their references
        (fetched next, as for any success: ``observe_fetched``), the job's newer attempt (if
        one was sent) ends ``cancelled``/superseded, and the job runs on until they are
        fetched. False when the job has ended meanwhile or the attempt is not such a one.
        """
        with self.handle.tx():
            old = _one(AttemptRow, _ATTEMPT_OF_PROMPT, prompt_id)
            if old is None or old.result != AttemptResult.lost.value:
                return False
            job = job_row(old.job_id)
            if JobState(job.state).is_terminal or old.n >= job.attempt:
                return False
            newer = _current_attempt(job)
            cause = f"attempt {old.n}, answered late, succeeded first"
            if newer is not None and not AttemptResult(newer.result).is_final:
                _end_attempt(
                    newer,
                    AttemptResult.cancelled,
                    _ending(
                        self.handle.now(),
                        Reason.superseded,
                        AttemptError(ErrorKind.superseded, cause),
                    ),
                )
                cause += f"; attempt {newer.n} withdrawn"
            refs_json = json.dumps({"images": list(refs), "note": bounded_text(note)})
            fields = {"refs_json": refs_json, "reason": None, **self._times(times)}
            _end_attempt(old, AttemptResult.succeeded, fields)
            state = JobState(job.state)
            target = JobState.running if is_forward(state, JobState.running) else None
            self._write_job(job, target, f"{cause}: fetching its pictures")
            return True

    # --- internals -----------------------------------------------------------------------------

    def _observe(
        self,
        prompt_id: str,
        result: AttemptResult,
        target: JobState,
        cause: str,
        *,
        attempt_fields: dict[str, Any] | None = None,
        job_fields: dict[str, Any] | None = None,
    ) -> bool:
        with self.handle.tx():
            found = self._live(prompt_id, result)
            if found is None:
                return False
            attempt, job = found
            _end_attempt(attempt, result, attempt_fields or {})
            state = JobState(job.state)
            move = target if is_forward(state, target) else None
            if state == JobState.cancelling and target == JobState.succeeded:
                cause = "finished before the cancel landed"
            times = {k: v for k, v in (attempt_fields or {}).items() if k in _TIME_FIELDS}
            self._write_job(job, move, cause, **times, **(job_fields or {}))
            return True

    def _live(
        self, prompt_id: str, result: AttemptResult | None
    ) -> tuple[AttemptRow, JobRow] | None:
        """The attempt of ``prompt_id`` and its job, if it is current and may move to ``result``."""
        attempt = _one(AttemptRow, _ATTEMPT_OF_PROMPT, prompt_id)
        if attempt is None:
            return None
        job = job_row(attempt.job_id)
        if attempt.n != job.attempt or JobState(job.state).is_terminal:
            return None
        current = AttemptResult(attempt.result)
        if result is None:
            return (attempt, job) if not current.is_final else None
        return (attempt, job) if result_is_forward(current, result) else None

    def _move(
        self,
        jobs: Sequence[_Found],
        target: JobState,
        cause: str,
        *,
        next_attempt: bool = False,
        **fields: Any,
    ) -> None:
        """Move ``jobs`` to ``target`` in two statements, whatever their number: each job gets
        a new feed position and one transition row.

        ``cause`` may name ``{attempt}``, the job's attempt afterwards; ``next_attempt`` opens
        the next one. ``fields`` are further job columns, the same for every job.
        """
        if not jobs:
            return
        for job in jobs:
            if not can_transition(job.state, target):
                raise IllegalTransition(f"job {job.id}: {job.state} -> {target} is not allowed")
        now = self.handle.now()
        first_seq = self.handle.next_seq(len(jobs))
        columns = ("state", "updated_at", "seq", "attempt", *fields)
        assignments = ", ".join(f"{column} = ?" for column in columns)
        extra = tuple(fields.values())
        attempts = [job.attempt + 1 if next_attempt else job.attempt for job in jobs]
        cursor = schema.database_proxy.cursor()
        cursor.executemany(
            f"UPDATE job SET {assignments} WHERE id = ?",
            [
                (target.value, now, first_seq + i, attempt, *extra, job.id)
                for i, (job, attempt) in enumerate(zip(jobs, attempts, strict=True))
            ],
        )
        cursor.executemany(
            "INSERT INTO transition (job_id, attempt, at, from_state, to_state, cause)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            [
                (job.id, job.attempt, now, job.state.value, target.value, cause.format(attempt=n))
                for job, n in zip(jobs, attempts, strict=True)
            ],
        )

    def _write_job(self, job: JobRow, target: JobState | None, cause: str, **fields: Any) -> None:
        """Update the job (new feed position) and record the transition to ``target``, if any."""
        now = self.handle.now()
        values: dict[str, Any] = {"updated_at": now, "seq": self.handle.next_seq(), **fields}
        if target is not None:
            current = JobState(job.state)
            if not can_transition(current, target):
                raise IllegalTransition(f"job {job.id}: {current} -> {target} is not allowed")
            values["state"] = target.value
            schema.database_proxy.execute_sql(
                _INSERT_TRANSITION,
                (job.id, job.attempt, now, current.value, target.value, cause),
            )
        _update("job", job.id, values)


class _Found(NamedTuple):
    """What a bulk command needs to know of one job."""

    id: str
    state: JobState
    attempt: int
    sent: bool  # the current attempt was written (being sent, or in ComfyUI)


# Each named job (NULL state: no such job) and whether its current attempt was written; one
# statement however many ids (a JSON array parameter), in the order they were named.
_FIND_JOBS = """
    SELECT named.value, job.state, job.attempt, attempt.id IS NOT NULL
    FROM json_each(?) AS named
    LEFT JOIN job ON job.id = named.value
    LEFT JOIN attempt ON attempt.job_id = job.id AND attempt.n = job.attempt
    ORDER BY named.key"""


def _find(job_ids: Sequence[str]) -> dict[str, _Found | None]:
    """The named jobs (None for an unknown id), each once, in the order named. In a tx."""
    cursor = schema.database_proxy.execute_sql(_FIND_JOBS, (json.dumps(list(job_ids)),))
    found: dict[str, _Found | None] = {}
    for job_id, state, attempt, sent in cursor.fetchall():
        found[job_id] = None if state is None else _Found(job_id, JobState(state), attempt, sent)
    return found


def job_row(job_id: str) -> JobRow:
    """The job's row (in a tx or read).

    Raises:
        UnknownRecord: there is no such job.
    """
    row = _one(JobRow, _JOB_BY_ID, job_id)
    if row is None:
        raise UnknownRecord(f"no job {job_id!r}")
    return row


def _carried_out(outcome: _T | Refused) -> _T:
    """A single job's outcome of a bulk command, or its refusal raised."""
    if isinstance(outcome, Refused):
        raise outcome.error
    return outcome


def _in_flight(requester: str, server: str, gone: Sequence[str]) -> int:
    """How many of ``requester``'s jobs are in flight on ``server`` but those in ``gone``."""
    params = (server, requester, json.dumps(list(gone)))
    return int(schema.database_proxy.execute_sql(_IN_FLIGHT_OF_REQUESTER, params).fetchone()[0])


def _refs_note(attempt: AttemptRow) -> str:
    return str(json.loads(attempt.refs_json or "{}").get("note", ""))


def _current_attempt(job: JobRow) -> AttemptRow | None:
    return _one(AttemptRow, _ATTEMPT_OF_JOB, job.id, job.attempt)


# The rows every verb reads and writes, as plain statements read into named tuples: building
# peewee's queries, and its model instances, cost several times what SQLite took to run them.
_JOB_BY_ID = f"SELECT {', '.join(JobRow._fields)} FROM job WHERE id = ?"
# Qualified: the statements that join the job table read the same columns.
ATTEMPT_COLUMNS = ", ".join(f"attempt.{column}" for column in AttemptRow._fields)
_ATTEMPT_OF_PROMPT = f"SELECT {ATTEMPT_COLUMNS} FROM attempt WHERE prompt_id = ?"
_ATTEMPT_OF_JOB = f"SELECT {ATTEMPT_COLUMNS} FROM attempt WHERE job_id = ? AND n = ?"
_INSERT_ATTEMPT = (
    f"INSERT INTO attempt ({', '.join(AttemptRow._fields[1:])})"
    f" VALUES ({', '.join('?' * (len(AttemptRow._fields) - 1))})"
)
_INSERT_TRANSITION = (
    "INSERT INTO transition (job_id, attempt, at, from_state, to_state, cause)"
    " VALUES (?, ?, ?, ?, ?, ?)"
)
# A requester's jobs in flight on one server: its current attempts there not yet ended (found
# through the result index: few, however long the ledger), but those gone from the queue.
_IN_FLIGHT_OF_REQUESTER = """
    SELECT COUNT(*) FROM attempt JOIN job ON job.id = attempt.job_id AND attempt.n = job.attempt
    WHERE attempt.result IN ('submitting', 'queued', 'running') AND attempt.server = ?
      AND job.requester = ? AND attempt.prompt_id NOT IN (SELECT value FROM json_each(?))"""
_ROW = TypeVar("_ROW", JobRow, AttemptRow)


def _one(row: type[_ROW], sql: str, *params: Any) -> _ROW | None:
    """The first row of ``sql`` (the columns of ``row``, in its order), or None."""
    values = schema.database_proxy.execute_sql(sql, params).fetchone()
    return None if values is None else row._make(values)


def _update(table: str, row_id: Any, values: dict[str, Any]) -> None:
    """Set the columns ``values`` of the ``table`` row ``row_id`` (job and attempt: by ``id``)."""
    assignments = ", ".join(f"{column} = ?" for column in values)
    schema.database_proxy.execute_sql(
        f"UPDATE {table} SET {assignments} WHERE id = ?", (*values.values(), row_id)
    )


def _ending(now: float, reason: Reason, error: AttemptError | None) -> dict[str, Any]:
    return {"finished_at": now, "reason": reason.value, "error_json": _stored(error)}


def _stored(error: AttemptError | None) -> str | None:
    """The error column's text: the error's JSON with ComfyUI's texts within the limits."""
    return json.dumps(bounded(error.to_json())) if error is not None else None


def _end_attempt(attempt: AttemptRow, result: AttemptResult, fields: dict[str, Any]) -> None:
    _update("attempt", attempt.id, {"result": result.value, **fields})
