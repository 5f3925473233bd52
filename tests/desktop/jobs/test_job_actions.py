"""Actions are enabled by the selected jobs' states and call the controller."""

from __future__ import annotations

import asyncio
import sqlite3
from typing import TYPE_CHECKING

import pytest

from core.comfy import ComfyClient
from core.controller import Controller
from core.job_state import JobState
from core.paths import ledger_path
from desktop.jobs.job_action_scope import (
    short_batch,
)
from desktop.jobs.job_actions import JobActions
from tests.core.helpers import run_job, succeed_job
from tests.desktop.conftest import make_jobs
from tests.desktop.helpers import until

if TYPE_CHECKING:
    from core.ledger import JobRecord


class Selection:
    """The jobs a test pretends are selected."""

    def __init__(self) -> None:
        self.jobs: list[JobRecord] = []

    def __call__(self) -> list[JobRecord]:
        return self.jobs


@pytest.fixture
def selection() -> Selection:
    return Selection()


@pytest.fixture
def actions(qapp, controller, selection, ledger):
    return JobActions(controller, selection, ledger.count_by_state)


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


def test_triggering_calls_the_controller(actions, selection, controller, jobs, qloop) -> None:
    selection.jobs = [jobs["pending"], jobs["running"], jobs["failed"]]
    actions.update_enabled()
    actions.confirm = lambda _question: True  # cancel batch asks, however few
    actions.cancel.trigger()
    actions.retry.trigger()
    actions.cancel_batch.trigger()
    actions.cancel_waiting.trigger()
    qloop.run_until_complete(until(lambda: len(controller.calls) == 4))
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


def test_a_bulk_cancel_leaves_the_window_free(qloop, ledger, preset_name, tmp_path) -> None:
    """While the cancel of 3,000 jobs waits for another writer's lock, the window's loop runs on:
    the loop itself lets the writer go (a cancel holding the loop would wait for the writer to
    its busy timeout, and fail). Nothing was cancelled before then: the cancel waited for it."""
    ids = make_jobs(ledger, preset_name, 3000)
    client = ComfyClient("http://127.0.0.1:9")  # never asked: the controller is not started
    controller = Controller(ledger, client, output_dir=tmp_path / "out")
    selection = Selection()
    selection.jobs = [ledger.job(ids[0])]
    actions = JobActions(controller, selection, ledger.count_by_state)
    actions.confirm = lambda _question: True  # 3,000 jobs: the artist said yes
    writer = sqlite3.connect(ledger_path(ledger.folder), isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")

    async def cancel_while_another_writes() -> dict[JobState, int]:
        actions.cancel_batch.trigger()
        await asyncio.sleep(0.3)  # the loop runs while the cancel waits for the lock
        while_held = ledger.count_by_state()
        writer.execute("ROLLBACK")
        # the command's task ends after its transaction does: let it finish before the check
        await until(lambda: not actions.busy, 30)
        return while_held

    try:
        while_held = qloop.run_until_complete(cancel_while_another_writes())
    finally:
        writer.close()
        qloop.run_until_complete(client.aclose())
    assert while_held == {JobState.pending: 3000}, "the cancel waited for the other writer"
    assert ledger.count_by_state() == {JobState.cancelled: 3000}
    assert {t.cause for t in ledger.transitions_of(ids[:10]).values() for t in t} == {
        "cancelled before it was sent"
    }


def test_bulk_actions_say_their_scope_and_large_ones_ask(
    actions, selection, controller, ledger, preset_name, qloop
) -> None:
    ids = make_jobs(ledger, preset_name, 22)
    run_job(ledger, ids[0])
    batch = ledger.job(ids[0]).batch
    short = f"batch_…_{batch.rsplit('_', 1)[1]}"
    selection.jobs = [ledger.job(ids[0]), ledger.job(ids[1])]
    actions.update_enabled()
    assert actions.cancel.text() == "&Cancel 2 selected jobs"
    assert actions.cancel_waiting.text() == f"Cancel 21 &waiting jobs of {short}"
    assert actions.cancel_batch.text() == f"Cancel &batch: 22 unfinished jobs of {short}"
    assert not actions.retry.isEnabled()
    assert actions.retry.toolTip().startswith("None of the selected jobs failed")
    questions: list[str] = []
    actions.confirm = lambda question: questions.append(question) or False
    actions.cancel_waiting.trigger()
    assert questions == [f"Cancel 21 waiting jobs of {short}? This cannot be undone."]
    assert controller.calls == [], "declined: nothing is cancelled"
    actions.confirm = lambda _question: True
    actions.cancel_waiting.trigger()
    qloop.run_until_complete(until(lambda: len(controller.calls) == 1))
    assert controller.calls == [("cancel_all_but_running", batch)]


def test_actions_that_would_do_nothing_are_disabled_and_say_why(
    actions, selection, ledger, preset_name
) -> None:
    ids = make_jobs(ledger, preset_name, 2)
    for job_id in ids:
        succeed_job(ledger, job_id, [])
    selection.jobs = [ledger.job(ids[0])]
    actions.update_enabled()
    batch = short_batch(selection.jobs[0].batch)
    assert not actions.cancel_batch.isEnabled()
    assert actions.cancel_batch.toolTip().startswith(f"{batch} has finished: nothing to cancel")
    assert not actions.cancel_waiting.isEnabled()
    assert actions.cancel_waiting.toolTip().startswith(f"No job of {batch} is waiting")
    assert not actions.retry_failed.isEnabled()
    assert actions.retry_failed.toolTip().startswith(f"{batch} has no failed job")
    assert not actions.cancel.isEnabled()
    selection.jobs = []
    actions.update_enabled()
    assert actions.cancel.toolTip().startswith("Select the jobs to cancel")


def test_the_toolbar_says_it_short_and_the_tooltip_whole(actions, selection, jobs) -> None:
    selection.jobs = [jobs["pending"]]
    actions.update_enabled()
    short = short_batch(jobs["pending"].batch)
    assert actions.cancel_waiting.iconText() == "Cancel waiting (1)"
    assert actions.retry_failed.iconText() == "Retry failed (1)"
    assert actions.retry_failed.text() == f"Retry 1 &failed job of {short}"
    assert actions.cancel_waiting.toolTip() == f"Cancel 1 waiting job of {short} (Ctrl+Shift+K)"
    assert "batch_…_" in short


def test_cancel_batch_asks_first_saying_how_many_however_few(
    actions, selection, controller, ledger, preset_name, qloop
) -> None:
    """As Trash rejected does: a whole batch is cancelled only once the artist said yes."""
    ids = make_jobs(ledger, preset_name, 3)
    run_job(ledger, ids[0])
    short = short_batch(ledger.job(ids[0]).batch)
    selection.jobs = [ledger.job(ids[2])]
    actions.update_enabled()
    questions: list[str] = []
    actions.confirm = lambda question: questions.append(question) or False
    actions.cancel_batch.trigger()
    assert questions == [f"Cancel batch: 3 unfinished jobs of {short}? This cannot be undone."]
    assert controller.calls == [], "no: nothing is cancelled"
    actions.confirm = lambda question: questions.append(question) or True
    actions.cancel_batch.trigger()
    qloop.run_until_complete(until(lambda: len(controller.calls) == 1))
    assert len(questions) == 2
    assert controller.calls == [("cancel_batch", ledger.job(ids[0]).batch)]


def test_cancel_batch_asks_in_the_windows_own_question(
    actions, selection, controller, ledger, preset_name, qloop
) -> None:
    """The real question box: Cancel (the default) declines, Yes cancels."""
    from PySide6.QtWidgets import QMessageBox

    from tests.desktop.helpers import answer_question

    ids = make_jobs(ledger, preset_name, 2)
    selection.jobs = [ledger.job(ids[0])]
    actions.update_enabled()
    asked: list[str] = []
    answer_question(QMessageBox.StandardButton.Cancel, asked)
    actions.cancel_batch.trigger()
    assert controller.calls == []
    answer_question(QMessageBox.StandardButton.Yes, asked)
    actions.cancel_batch.trigger()
    qloop.run_until_complete(until(lambda: len(controller.calls) == 1))
    assert len(asked) == 2
    assert "2 unfinished jobs" in asked[0]
