"""Acceptance: closing the window leaves the work to the background controller.

The app's window is a client: `batchline serve`, started by the session, does the work; it
goes on with no window open, a new window attaches to it instead of starting a second one, and
"Quit Batchline completely" stops it. Real processes, a real simulator, the real window.
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING

import pytest

from core.job_state import JobState
from core.ledger import Ledger
from desktop.app.close_dialog import KEEP_TEXT, STOP_TEXT
from desktop.app.session import Session, SessionOptions
from simulator.thread import SimulatorThread
from tests.cli.conftest import batchline
from tests.desktop.background_helpers import (
    answer_close_dialog,
    app_started_controllers,
    background_controller,
    close_window,
    ledger_free,
    queue_from_window,
    states,
    until,
    visible_windows,
)

if TYPE_CHECKING:
    from pathlib import Path


def test_keep_running_finishes_the_batch_with_no_window_and_a_new_window_attaches(
    qtbot, qloop, home: Path, preset_copy: Path
) -> None:
    options = SessionOptions(data_dir=home)
    asked: list[str] = []

    async def scenario() -> None:
        first = Session(options)
        window = await first.open()
        started = await background_controller(first)
        ids = queue_from_window(window, preset_copy, 8)
        await until(lambda: len(ids) == 8 and JobState.running in states(home, ids))
        answer_close_dialog(KEEP_TEXT, asked)
        await close_window(window, first)
        assert first.finished.result() == "background"
        await first.close("background")
        assert visible_windows() == []

        # No window: the background controller goes on.
        done_at_close = states(home, ids).count(JobState.succeeded)
        await until(lambda: states(home, ids).count(JobState.succeeded) >= done_at_close + 2)
        assert JobState.succeeded in states(home, ids)
        assert states(home, ids).count(JobState.succeeded) < 8, "the batch ended too soon"

        # Opening again attaches to it: the same controller, the jobs finish live in the window.
        second = Session(options)
        window = await second.open()
        attached = await background_controller(second)
        assert (attached.run_id, attached.pid) == (started.run_id, started.pid)
        assert second.ledger is not None
        row = second.ledger.controller_runs.current()
        assert row is not None
        assert not row.exit_when_idle, "a window watches it again: it must not stop when done"
        await until(
            lambda: {window.model.job_at(r).state for r in range(8)} == {JobState.succeeded},
            about=lambda: [window.model.job_at(r).state for r in range(8)],
        )
        assert "Connected" in window.status.connection.text()

        # Quit Batchline completely: the background controller stops.
        window.quit_all_action.trigger()
        assert second.finished.result() == "quit_all"
        await second.close("quit_all")
        with Ledger(home) as ledger:
            assert ledger_free(ledger)
            final = ledger.controller_runs.current()
            assert final is not None
            assert final.stopped_at is not None

    qloop.run_until_complete(scenario())
    assert asked == ["8 jobs are not finished yet."] or asked[0].endswith("not finished yet.")


def test_the_batch_finishes_with_no_window_and_reopening_shows_it_on_the_same_controller(
    qtbot, qloop, home: Path, preset_copy: Path
) -> None:
    """The acceptance story: queue, close with "keep running", the batch finishes with no
    window, the window opened again shows the finished jobs from the same controller (not a
    second one), and closing it with nothing left stops the controller the app started."""
    options = SessionOptions(data_dir=home)

    async def scenario() -> None:
        first = Session(options)
        window = await first.open()
        started = await background_controller(first)
        ids = queue_from_window(window, preset_copy, 3)
        answer_close_dialog(KEEP_TEXT, [])
        await close_window(window, first)
        await first.close(first.finished.result())
        assert visible_windows() == []
        await until(lambda: states(home, ids) == [JobState.succeeded] * 3, seconds=60)

        second = Session(options)  # within the idle grace: the same controller is there
        window = await second.open()
        attached = await background_controller(second)
        assert (attached.run_id, attached.pid) == (started.run_id, started.pid)
        await until(lambda: window.model.rowCount() == 3)
        assert {window.model.job_at(r).state for r in range(3)} == {JobState.succeeded}
        await close_window(window, second)  # nothing left: no question, it just closes
        assert second.finished.result() == "quit"
        await second.close("quit")
        with Ledger(home) as ledger:
            assert ledger_free(ledger), "the app stops the controller it started"

    qloop.run_until_complete(scenario())
    assert app_started_controllers(home) == []


def test_stop_sending_stops_the_controller_and_the_jobs_wait(
    qtbot, qloop, home: Path, preset_copy: Path
) -> None:
    async def scenario() -> list[str]:
        session = Session(SessionOptions(data_dir=home))
        window = await session.open()
        await background_controller(session)
        ids = queue_from_window(window, preset_copy, 6)
        await until(lambda: len(ids) == 6 and JobState.running in states(home, ids))
        answer_close_dialog(STOP_TEXT, [])
        await close_window(window, session)
        assert session.finished.result() == "stop"
        await session.close("stop")
        return ids

    ids = qloop.run_until_complete(scenario())
    with Ledger(home) as ledger:
        assert ledger_free(ledger)
    left = states(home, ids)
    assert JobState.pending in left, left  # not sent: they wait for the next window


def test_a_controller_started_by_hand_is_attached_to_and_left_running(
    qtbot, qloop, home: Path, slow_sim: SimulatorThread
) -> None:
    served = batchline(home, "serve")
    try:
        assert served.stdout is not None
        served.stdout.readline()

        async def scenario() -> None:
            session = Session(SessionOptions(data_dir=home))
            window = await session.open()
            running = await background_controller(session)
            assert (running.pid, running.origin) == (served.pid, "terminal")
            await close_window(window, session)  # nothing left to do: the window just closes
            assert session.finished.result() == "quit"
            await session.close("quit")

        qloop.run_until_complete(scenario())
        assert app_started_controllers(home) == [], "a second controller was started"
        assert served.poll() is None, "the app stopped a controller it did not start"
    finally:
        served.terminate()
        served.communicate(timeout=30)


@pytest.mark.expect_log("desktop.app.session", "ERROR")
@pytest.mark.expect_log("core.controller.client", "WARNING")  # until the session looks again
def test_a_data_folder_deleted_under_the_window_is_said_and_nothing_is_started_in_it(
    qtbot, qloop, home: Path, preset_copy: Path
) -> None:
    """The background controller stops once its ledger file is gone; the window says why in one
    line and starts no controller that would make an empty data folder there again."""
    import shutil

    async def scenario() -> None:
        session = Session(SessionOptions(data_dir=home))
        window = await session.open()
        started = await background_controller(session)
        shutil.rmtree(home)
        await until(lambda: "is gone" in window.banner.text(), about=window.banner.text)
        assert window.banner.text() == (
            f"The data folder {home} is gone (deleted or moved): Batchline cannot follow its "
            "jobs any more. Quit and start it again."
        )
        await until(lambda: not _alive(started.pid), about=lambda: "the controller still runs")
        await asyncio.sleep(1.5)  # longer than the session's look at its controller
        assert not home.exists(), "no controller made the folder again"
        await session.close("quit")

    qloop.run_until_complete(scenario())


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.expect_log("desktop.common.tasks", "ERROR")
def test_a_failing_session_task_is_said_with_its_reason(qtbot, qloop, home: Path) -> None:
    """Not only the task's name: what went wrong in it."""

    async def broken() -> None:
        raise RuntimeError("the disk said no")

    async def scenario() -> None:
        session = Session(SessionOptions(data_dir=home))
        window = await session.open()
        await background_controller(session)  # so that quitting stops it
        session.tasks.start(broken(), "saving the settings")
        await until(lambda: "saving" in window.banner.text(), about=window.banner.text)
        assert window.banner.text() == "saving the settings: the disk said no"
        await session.close("quit")

    qloop.run_until_complete(scenario())
