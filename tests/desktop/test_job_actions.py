"""Actions are enabled by the selected jobs' states and call the controller."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from core.job_state import Reason
from desktop.job_actions import JobActions, can_cancel, can_retry, can_retry_smaller
from tests.desktop.conftest import make_jobs
from tests.desktop.helpers import fail_job, run_job

if TYPE_CHECKING:
    from core.ledger import JobRecord


class Selection:
    """The jobs a test pretends are selected."""

    def __init__(self) -> None:
        self.jobs: list[JobRecord] = []

    def __call__(self) -> list[JobRecord]:
        return self.jobs


@pytest.fixture
def jobs(ledger, preset_name):
    ids = make_jobs(ledger, preset_name, 4)
    run_job(ledger, ids[1])
    fail_job(ledger, ids[2], Reason.oom)
    ledger.request_cancel(run_job(ledger, ids[3]) and ids[3])
    return {job.state.value: job for job in ledger.jobs()}


@pytest.fixture
def selection() -> Selection:
    return Selection()


@pytest.fixture
def actions(qapp, controller, selection):
    return JobActions(controller, selection)


def test_states_decide_what_is_allowed(jobs) -> None:
    pending, running = jobs["pending"], jobs["running"]
    failed, cancelling = jobs["failed"], jobs["cancelling"]
    assert can_cancel([pending])
    assert can_cancel([running])
    assert not can_cancel([cancelling])  # disabled while cancelling
    assert not can_cancel([failed])
    assert can_retry([failed])
    assert not can_retry([running])
    assert can_retry_smaller([failed])
    assert not can_retry_smaller([pending])


def test_actions_follow_the_selection(actions, selection, jobs) -> None:
    actions.update_enabled()
    assert not actions.cancel.isEnabled()
    assert not actions.cancel_batch.isEnabled()
    selection.jobs = [jobs["cancelling"]]
    actions.update_enabled()
    assert not actions.cancel.isEnabled()
    assert actions.cancel_batch.isEnabled()
    selection.jobs = [jobs["failed"]]
    actions.update_enabled()
    assert (actions.retry.isEnabled(), actions.retry_smaller.isEnabled()) == (True, True)
    assert not actions.cancel.isEnabled()


def test_triggering_calls_the_controller(actions, selection, controller, jobs) -> None:
    selection.jobs = [jobs["pending"], jobs["running"], jobs["failed"]]
    actions.update_enabled()
    actions.cancel.trigger()
    actions.retry.trigger()
    actions.cancel_batch.trigger()
    actions.cancel_waiting.trigger()
    batch = jobs["pending"].batch
    assert controller.calls == [
        ("cancel", [jobs["pending"].id, jobs["running"].id]),
        ("retry", [jobs["failed"].id]),
        ("cancel_batch", batch),
        ("cancel_all_but_running", batch),
    ]


def test_retry_smaller_reports_the_new_job(actions, selection, qtbot, jobs) -> None:
    selection.jobs = [jobs["failed"]]
    actions.update_enabled()
    with qtbot.waitSignal(actions.retried_as) as blocker:
        actions.retry_smaller.trigger()
    assert blocker.args == [jobs["failed"].id + "_smaller"]


def test_pause_toggles_dispatch(actions, controller) -> None:
    actions.pause.trigger()
    assert controller.status.paused
    assert actions.pause.text() == "Resume &dispatch"
    actions.pause.trigger()
    assert controller.names()[-2:] == ["pause", "resume"]
    assert not actions.pause.isChecked()


def test_every_action_has_a_shortcut(actions) -> None:
    assert all(not action.shortcut().isEmpty() for action in actions.all())
