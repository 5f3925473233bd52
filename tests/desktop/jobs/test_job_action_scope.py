"""Tests for desktop.jobs.job_action_scope: what each action would reach, by the jobs' states."""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop.jobs.job_action_scope import (
    cancel_scope,
    retry_scope,
    retry_smaller_scope,
)

if TYPE_CHECKING:
    pass


def test_states_decide_what_is_allowed(jobs) -> None:
    pending, running = jobs["pending"], jobs["running"]
    failed, cancelling = jobs["failed"], jobs["cancelling"]
    assert cancel_scope([pending]).enabled
    assert cancel_scope([running]).enabled
    assert not cancel_scope([cancelling]).enabled  # disabled while cancelling
    assert not cancel_scope([failed]).enabled
    assert retry_scope([failed]).enabled
    assert not retry_scope([running]).enabled
    assert retry_smaller_scope([failed]).enabled
    assert not retry_smaller_scope([pending]).enabled
