"""The job rules (cancel, retry, retry smaller) agree with the transition table."""

from __future__ import annotations

import pytest

from core.job_state import (
    ALLOWED_TRANSITIONS,
    CANCELLABLE_STATES,
    RETRYABLE_STATES,
    JobState,
    Reason,
    can_retry_smaller,
    can_transition,
)

_S = JobState
EXPECTED_CANCEL = {_S.pending, _S.queued, _S.running}
EXPECTED_RETRY = {_S.failed, _S.cancelled}


@pytest.mark.parametrize("state", list(JobState))
def test_cancel_rule_per_state(state: JobState) -> None:
    assert state.can_cancel is (state in EXPECTED_CANCEL)
    assert (state in CANCELLABLE_STATES) is state.can_cancel
    if state.can_cancel:
        assert can_transition(state, JobState.cancelling)
        assert can_transition(state, JobState.cancelled)
    else:
        assert state.is_terminal or state is JobState.cancelling


@pytest.mark.parametrize("state", list(JobState))
def test_retry_rule_per_state(state: JobState) -> None:
    assert state.can_retry is (state in EXPECTED_RETRY)
    assert (state in RETRYABLE_STATES) is state.can_retry
    if state.can_retry:
        assert state.is_terminal
        assert ALLOWED_TRANSITIONS[state] == frozenset({JobState.pending})
    # never both: a job is either still going (cancel) or over (retry)
    assert not (state.can_cancel and state.can_retry)


@pytest.mark.parametrize("state", list(JobState))
@pytest.mark.parametrize("reason", [None, *Reason])
def test_retry_smaller_rule_per_state_and_reason(state: JobState, reason: Reason | None) -> None:
    expected = state is JobState.failed and reason is Reason.oom
    assert can_retry_smaller(state, reason) is expected
    assert can_retry_smaller(state, None if reason is None else reason.value) is expected
    if expected:
        assert state.can_retry
