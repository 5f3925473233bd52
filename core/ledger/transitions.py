"""The named verbs that move jobs and attempts, checked against the transition table.

Two kinds of verbs:
- *observations* (``observe_*``) report what ComfyUI said about a prompt_id. A stale, duplicate
  or backward observation, or one about an older attempt's prompt_id, changes nothing and
  returns False.
- *commands* (``submit_attempt``, ``request_cancel``, ``retry``) are asked for by a person or
  the controller; a command the table forbids raises IllegalTransition.

Each verb is one transaction that writes the attempt, the job (with a new change-feed position)
and, when the job's state changes, one row in the transitions table.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from core.errors import IllegalTransition
from core.job_state import (
    AttemptResult,
    JobState,
    Reason,
    can_transition,
    is_forward,
    result_is_forward,
)
from core.ledger import schema
from core.ledger.records import AttemptRecord, JobRecord

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

DEFAULT_MAX_ATTEMPTS = 3
# The current attempt's run times, copied onto the job so a table can show them row by row.
_TIME_FIELDS = ("started_at", "finished_at")
_NO_TIMES = {"started_at": None, "finished_at": None}


class TransitionVerbs:
    """The state-changing half of the Ledger (mixed into it)."""

    # Provided by Ledger.
    def tx(self) -> AbstractContextManager[None]:
        raise NotImplementedError

    def now(self) -> float:
        raise NotImplementedError

    def next_seq(self, count: int = 1) -> int:
        raise NotImplementedError

    def job_row(self, job_id: str) -> schema.Job:
        raise NotImplementedError

    # --- commands ------------------------------------------------------------------------------

    def submit_attempt(
        self, job_id: str, prompt_id: str, server: str, workflow_hash: str
    ) -> AttemptRecord:
        """Record the current attempt's prompt_id (result ``submitting``) before it is sent."""
        with self.tx():
            job = self.job_row(job_id)
            if job.state != JobState.pending:
                raise IllegalTransition(f"job {job_id} is {job.state}, not pending: not submitted")
            if _current_attempt(job) is not None:
                raise IllegalTransition(f"job {job_id} attempt {job.attempt} was already sent")
            row = schema.Attempt.create(
                job=job.id,
                n=job.attempt,
                prompt_id=prompt_id,
                server=server,
                result=AttemptResult.submitting.value,
                workflow_hash=workflow_hash,
                created_at=self.now(),
            )
            self._write_job(job, None, "")
            return AttemptRecord.from_row(row)

    def request_cancel(self, job_id: str) -> JobState:
        """Cancel a job: at once if nothing was sent, else ``cancelling`` until ComfyUI confirms.

        Returns the job's new state. Raises IllegalTransition for a job already finished.
        """
        with self.tx():
            job = self.job_row(job_id)
            state = JobState(job.state)
            if state.is_terminal:
                raise IllegalTransition(f"job {job_id} already {state}: nothing to cancel")
            if state == JobState.cancelling:
                return state
            if state == JobState.pending and _current_attempt(job) is None:
                self._write_job(
                    job,
                    JobState.cancelled,
                    "cancelled before it was sent",
                    reason=Reason.cancelled.value,
                    finished_at=self.now(),
                )
                return JobState.cancelled
            self._write_job(job, JobState.cancelling, "cancel requested")
            return JobState.cancelling

    def retry(self, job_id: str) -> JobRecord:
        """Manual retry of a failed or cancelled job: the next attempt, back to pending."""
        with self.tx():
            job = self.job_row(job_id)
            state = JobState(job.state)
            if state not in (JobState.failed, JobState.cancelled):
                raise IllegalTransition(
                    f"job {job_id} is {state}: only failed or cancelled jobs can be retried"
                )
            n = job.attempt + 1
            self._write_job(
                job,
                JobState.pending,
                f"manual retry as attempt {n}",
                attempt=n,
                auto_attempts=1,
                reason=None,
                warning=None,
                **_NO_TIMES,
            )
            return JobRecord.from_row(self.job_row(job_id))

    # --- observations --------------------------------------------------------------------------

    def observe_queued(
        self, prompt_id: str, number: float | None = None, warning: str | None = None
    ) -> bool:
        extra = {"warning": warning} if warning else {}
        fields: dict[str, Any] = {"queued_at": self.now()}
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
            attempt_fields={"started_at": self.now()},
        )

    def observe_succeeded(
        self,
        prompt_id: str,
        outputs: list[str],
        note: str = "",
        times: tuple[float | None, float | None] = (None, None),
    ) -> bool:
        """The attempt succeeded; ``times`` are the server's (started, finished) when known."""
        fields = {"outputs_json": json.dumps(outputs), **self._times(times)}
        return self._observe(
            prompt_id,
            AttemptResult.succeeded,
            JobState.succeeded,
            note or "finished",
            attempt_fields=fields,
            job_fields={"reason": None},
        )

    def observe_failed(
        self,
        prompt_id: str,
        reason: Reason,
        error: dict[str, Any] | None = None,
        times: tuple[float | None, float | None] = (None, None),
    ) -> bool:
        """The attempt failed for a cause that is never retried automatically."""
        return self._observe(
            prompt_id,
            AttemptResult.failed,
            JobState.failed,
            reason.value,
            attempt_fields={**_ending(self.now(), reason, error), **self._times(times)},
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
            attempt_fields={**_ending(self.now(), reason, None), **self._times(times)},
            job_fields={"reason": reason.value},
        )

    def observe_retryable(
        self,
        prompt_id: str,
        result: AttemptResult,
        reason: Reason,
        error: dict[str, Any] | None = None,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    ) -> bool:
        """The attempt ended ``lost`` or ``failed`` for a cause retried automatically.

        The job goes back to pending as the next attempt while its automatic budget lasts, else
        it fails. A job being cancelled is cancelled instead: its prompt is gone, as asked.
        """
        with self.tx():
            found = self._live(prompt_id, result)
            if found is None:
                return False
            attempt, job = found
            _end_attempt(attempt, result, _ending(self.now(), reason, error))
            if job.state == JobState.cancelling:
                self._write_job(
                    job,
                    JobState.cancelled,
                    f"{reason.value} while cancelling",
                    reason=Reason.cancelled.value,
                    finished_at=self.now(),
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
                    finished_at=self.now(),
                )
            return True

    def set_stalled(self, prompt_id: str, stalled: bool) -> bool:
        """Flag (or clear) a running attempt as running beyond the stall limit."""
        with self.tx():
            found = self._live(prompt_id, None)
            if found is None or found[0].stalled == stalled:
                return False
            attempt, job = found
            schema.Attempt.update(stalled=stalled).where(schema.Attempt.id == attempt.id).execute()
            self._write_job(job, None, "")
            return True

    def _times(self, times: tuple[float | None, float | None]) -> dict[str, float]:
        """started_at / finished_at from the server when known (finished defaults to now)."""
        started, finished = times
        fields = {"finished_at": finished if finished is not None else self.now()}
        if started is not None:
            fields["started_at"] = started
        return fields

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
        with self.tx():
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
    ) -> tuple[schema.Attempt, schema.Job] | None:
        """The attempt of ``prompt_id`` and its job, if it is current and may move to ``result``."""
        attempt = schema.Attempt.get_or_none(schema.Attempt.prompt_id == prompt_id)
        if attempt is None:
            return None
        job = attempt.job
        if attempt.n != job.attempt or JobState(job.state).is_terminal:
            return None
        current = AttemptResult(attempt.result)
        if result is None:
            return (attempt, job) if not current.is_final else None
        return (attempt, job) if result_is_forward(current, result) else None

    def _write_job(
        self, job: schema.Job, target: JobState | None, cause: str, **fields: Any
    ) -> None:
        """Update the job (new feed position) and record the transition to ``target``, if any."""
        now = self.now()
        values: dict[str, Any] = {"updated_at": now, "seq": self.next_seq(), **fields}
        if target is not None:
            current = JobState(job.state)
            if not can_transition(current, target):
                raise IllegalTransition(f"job {job.id}: {current} -> {target} is not allowed")
            values["state"] = target.value
            schema.Transition.create(
                job=job.id,
                attempt=job.attempt,
                at=now,
                from_state=current.value,
                to_state=target.value,
                cause=cause,
            )
        schema.Job.update(**values).where(schema.Job.id == job.id).execute()


def _current_attempt(job: schema.Job) -> schema.Attempt | None:
    query = schema.Attempt.select().where(
        schema.Attempt.job == job.id, schema.Attempt.n == job.attempt
    )
    row: schema.Attempt | None = query.first()
    return row


def _ending(now: float, reason: Reason, error: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "finished_at": now,
        "reason": reason.value,
        "error_json": json.dumps(error) if error else None,
    }


def _end_attempt(attempt: schema.Attempt, result: AttemptResult, fields: dict[str, Any]) -> None:
    values = {"result": result.value, **fields}
    schema.Attempt.update(**values).where(schema.Attempt.id == attempt.id).execute()
