"""A job as JSON: the one shape `batchline show --json`, `batchline jobs --json` and the HTTP
API give, with states, results and reasons by their lowercase names (each reason, cause and
error also in words, the window's) and times in ISO-8601 UTC."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from core.reason_texts import cause_text, reason_text

if TYPE_CHECKING:
    from core.ledger import AttemptRecord, JobRecord, Ledger, TransitionRecord


def iso(timestamp: float | None) -> str | None:
    """A ledger time as ISO-8601 UTC (``2025-01-31T12:00:00.123Z``), or None."""
    if timestamp is None:
        return None
    text = datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="milliseconds")
    return text.replace("+00:00", "Z")


def job_json(
    ledger: Ledger,
    job: JobRecord,
    preset: str | None = None,
    attempts: list[AttemptRecord] | None = None,
    transitions: list[TransitionRecord] | None = None,
) -> dict[str, Any]:
    """A job with its attempts, outputs and transitions; states, results and reasons by their
    lowercase names.

    ``preset``, ``attempts`` and ``transitions`` are read from the ledger unless given.
    """
    if attempts is None:
        attempts = ledger.attempts(job.id)
    if transitions is None:
        transitions = ledger.transitions(job.id)
    return {
        "id": job.id,
        "batch": job.batch,
        "preset": preset if preset is not None else ledger.batch(job.batch).preset,
        "state": job.state.value,
        "reason": job.reason,
        "reason_text": reason_text(job.reason) or None,
        "warning": job.warning,
        "requester": job.requester,
        "priority": job.priority,
        "params": job.params,
        "attempt": job.attempt,
        "created_at": iso(job.created_at),
        "updated_at": iso(job.updated_at),
        "attempts": [attempt_json(a) for a in attempts],
        "outputs": [path for a in attempts for path in a.outputs],
        "transitions": [transition_json(t) for t in transitions],
    }


def attempt_json(attempt: AttemptRecord) -> dict[str, Any]:
    return {
        "n": attempt.n,
        "prompt_id": attempt.prompt_id,
        "server": attempt.server,
        "placed_because": attempt.placed_because or None,
        "number": attempt.number,
        "result": attempt.result.value,
        "reason": attempt.reason,
        "reason_text": reason_text(attempt.reason) or None,
        "error": attempt.error.to_json() if attempt.error else None,
        "error_text": attempt.error.short() if attempt.error else None,
        "stalled": attempt.stalled,
        "workflow_hash": attempt.workflow_hash,
        "created_at": iso(attempt.created_at),
        "queued_at": iso(attempt.queued_at),
        "started_at": iso(attempt.started_at),
        "finished_at": iso(attempt.finished_at),
        "outputs": list(attempt.outputs),
    }


def transition_json(transition: TransitionRecord) -> dict[str, Any]:
    return {
        "at": iso(transition.at),
        "from": transition.from_state.value,
        "to": transition.to_state.value,
        "attempt": transition.attempt,
        "cause": transition.cause,
        "cause_text": cause_text(transition.cause),
    }


def jobs_json(ledger: Ledger, jobs: list[JobRecord]) -> list[dict[str, Any]]:
    """Several jobs: presets, attempts and transitions read in bulk, not job by job."""
    presets = {batch.id: batch.preset for batch in ledger.batches()}
    ids = [job.id for job in jobs]
    attempts, transitions = ledger.attempts_of(ids), ledger.transitions_of(ids)
    return [
        job_json(
            ledger, job, presets[job.batch], attempts.get(job.id, []), transitions.get(job.id, [])
        )
        for job in jobs
    ]
