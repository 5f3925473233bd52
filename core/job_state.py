"""Job states, attempt results and reasons, and the transition table."""

from __future__ import annotations

from enum import StrEnum


class JobState(StrEnum):
    """Where a job stands; stored and printed in lowercase."""

    pending = "pending"  # in the ledger, not (yet) accepted by ComfyUI
    queued = "queued"  # ComfyUI accepted the current attempt; it waits in queue_pending
    running = "running"  # seen in queue_running or announced by execution_start
    cancelling = "cancelling"  # the artist asked to cancel; ComfyUI has not confirmed yet
    succeeded = "succeeded"
    failed = "failed"
    cancelled = "cancelled"

    @property
    def is_terminal(self) -> bool:
        return self in TERMINAL_STATES

    @property
    def is_active(self) -> bool:
        """The job may still do something without a manual retry."""
        return self not in TERMINAL_STATES

    @property
    def can_cancel(self) -> bool:
        """A cancel request would move the job: it is neither finished nor already being
        cancelled."""
        return JobState.cancelling in ALLOWED_TRANSITIONS[self]

    @property
    def can_retry(self) -> bool:
        """A manual retry may open the job's next attempt: it failed or was cancelled."""
        return self.is_terminal and JobState.pending in ALLOWED_TRANSITIONS[self]


TERMINAL_STATES = frozenset({JobState.succeeded, JobState.failed, JobState.cancelled})


class AttemptResult(StrEnum):
    """What became of one submission of a job."""

    submitting = "submitting"  # prompt_id written, POST /prompt not yet answered
    queued = "queued"
    running = "running"
    succeeded = "succeeded"
    failed = "failed"
    cancelled = "cancelled"
    lost = "lost"  # the server no longer knows the prompt

    @property
    def is_final(self) -> bool:
        return self in FINAL_RESULTS


FINAL_RESULTS = frozenset(
    {AttemptResult.succeeded, AttemptResult.failed, AttemptResult.cancelled, AttemptResult.lost}
)


class Reason(StrEnum):
    """Why an attempt or a job failed or was cancelled; the cause decides whether an attempt
    is retried automatically."""

    connection_error = "connection_error"
    timeout = "timeout"
    server_lost = "server_lost"
    server_error = "server_error"
    validation_error = "validation_error"
    oom = "oom"
    execution_error = "execution_error"
    cancelled = "cancelled"
    interrupted_elsewhere = "interrupted_elsewhere"
    removed_elsewhere = "removed_elsewhere"
    superseded = "superseded"  # withdrawn: an older attempt, answered late, succeeded first
    outputs_gone = "outputs_gone"  # it succeeded, but its pictures were gone from the server
    output_refused = "output_refused"  # it succeeded, but its batch folder is a link (refused)
    model_missing = "model_missing"  # the server refused it for a model it stopped listing
    picture_missing = "picture_missing"  # the server refused it for an input picture it lost


_S = JobState
# Job-level moves the ledger accepts. A move to `pending` is only ever made together with a new
# attempt (automatic retry or manual retry), so within one attempt states only move forward.
ALLOWED_TRANSITIONS: dict[JobState, frozenset[JobState]] = {
    _S.pending: frozenset(
        {_S.pending, _S.queued, _S.running, _S.cancelling, _S.succeeded, _S.failed, _S.cancelled}
    ),
    _S.queued: frozenset(
        {_S.pending, _S.running, _S.cancelling, _S.succeeded, _S.failed, _S.cancelled}
    ),
    _S.running: frozenset({_S.pending, _S.cancelling, _S.succeeded, _S.failed, _S.cancelled}),
    _S.cancelling: frozenset({_S.succeeded, _S.failed, _S.cancelled}),
    _S.succeeded: frozenset(),
    _S.failed: frozenset({_S.pending}),
    _S.cancelled: frozenset({_S.pending}),
}

# Forward order of the states an observation can report within one attempt.
_RANK = {_S.pending: 0, _S.queued: 1, _S.running: 2, _S.cancelling: 3}

_RESULT_ORDER = {
    AttemptResult.submitting: 0,
    AttemptResult.queued: 1,
    AttemptResult.running: 2,
}


def can_transition(current: JobState, target: JobState) -> bool:
    """Whether the table allows the job-level move ``current -> target``."""
    return target in ALLOWED_TRANSITIONS[current]


def can_retry_smaller(state: JobState, reason: str | None) -> bool:
    """Whether "retry smaller" (a new job with the size reduced) applies: the job failed out of
    memory."""
    return state == JobState.failed and reason == Reason.oom


CANCELLABLE_STATES = tuple(state for state in JobState if state.can_cancel)
RETRYABLE_STATES = tuple(state for state in JobState if state.can_retry)
# Not yet running: what "cancel all but running" reaches.
WAITING_STATES = (JobState.pending, JobState.queued)


def is_forward(current: JobState, target: JobState) -> bool:
    """Whether an observation moving ``current -> target`` within one attempt is forward.

    Terminal targets are always forward from a non-terminal state; ``cancelling`` is never left
    for ``queued`` or ``running`` (the job keeps showing that it is being cancelled).
    """
    if current.is_terminal:
        return False
    if target.is_terminal:
        return True
    return _RANK[target] > _RANK[current]


def result_is_forward(current: AttemptResult, target: AttemptResult) -> bool:
    """Whether an attempt may move from result ``current`` to ``target``."""
    if current.is_final:
        return False
    if target.is_final:
        return True
    return _RESULT_ORDER[target] > _RESULT_ORDER[current]
