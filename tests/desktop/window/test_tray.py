"""The tray icon: progress while Batchline works with its window hidden, Open and Quit.

The test machine has no tray host, so the session is told one exists (the icon itself is a real
QSystemTrayIcon; only its drawing by a tray host is missing)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.batch.batch_counts import BatchCounts
from core.controller.status import Connection, ControllerStatus
from core.job_state import JobState
from core.ledger import Ledger
from desktop.app import session as session_module
from desktop.app.close_dialog import KEEP_TEXT
from desktop.app.session import Session, SessionOptions
from desktop.window.tray import tooltip_text
from tests.desktop.background_helpers import (
    answer_close_dialog,
    background_controller,
    close_window,
    ledger_free,
    queue_from_window,
    states,
    until,
)

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

CONNECTED = ControllerStatus(connection=Connection.connected)


def test_the_tooltip_says_the_progress_in_an_artists_words() -> None:
    counts = BatchCounts(succeeded=5, running=1, waiting=5, failed=1)
    assert tooltip_text(counts, CONNECTED) == (
        "Batchline\n5 of 12 done\n1 running, 5 waiting\n1 failed"
    )
    assert tooltip_text(BatchCounts(succeeded=12), CONNECTED) == (
        "Batchline\nAll done: 12 of 12 succeeded"
    )
    assert tooltip_text(BatchCounts(), CONNECTED) == "Batchline\nNo jobs yet"
    offline = ControllerStatus(connection=Connection.offline)
    assert tooltip_text(BatchCounts(waiting=3), offline).endswith(
        "ComfyUI is not answering: the jobs wait"
    )
    assert tooltip_text(BatchCounts(succeeded=3), offline).endswith("succeeded")  # none waits
    stopped = ControllerStatus(stopped="no controller is running for this ledger")
    assert tooltip_text(BatchCounts(waiting=3), stopped).endswith(
        "Not sending jobs: no controller is running for this ledger"
    )


def test_keep_running_with_a_tray_hides_the_window_and_the_tray_opens_it_again(
    qtbot, qloop, home: Path, preset_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(session_module, "tray_available", lambda: True)

    async def scenario() -> None:
        session = Session(SessionOptions(data_dir=home))
        window = await session.open()
        assert session.tray is not None
        first = await background_controller(session)
        ids = queue_from_window(window, preset_copy, 3)
        answer_close_dialog(KEEP_TEXT, [])
        await close_window(window, session)
        assert not session.finished.done(), "the app stays, in the tray"
        assert not window.isVisible()
        assert session.ledger is not None
        row = session.ledger.controller_runs.current()
        assert row is not None
        assert row.exit_when_idle
        await until(lambda: session.tray is not None and "of 3 done" in session.tray.icon.toolTip())

        # Done with the window hidden: the controller stops by itself, the tray stays.
        await until(lambda: states(home, ids) == [JobState.succeeded] * 3, seconds=60)
        await until(lambda: ledger_free(session.ledger), seconds=30)
        session.tray.refresh()
        assert "All done: 3 of 3 succeeded" in session.tray.icon.toolTip()

        # Open from the tray: the window, and a controller again for it.
        session.tray.open_action.trigger()
        assert window.isVisible()
        client = session.controller
        assert client is not None
        await until(lambda: client.running is not None and client.running.run_id != first.run_id)
        await background_controller(session)
        row = session.ledger.controller_runs.current()
        assert row is not None
        assert not row.exit_when_idle

        session.tray.quit_action.trigger()
        assert session.finished.result() == "quit_all"
        await session.close("quit_all")
        with Ledger(home) as ledger:
            assert ledger_free(ledger)

    qloop.run_until_complete(scenario())


def test_the_tray_counts_the_jobs_again_only_once_one_changed(
    qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counting reads every job of the ledger: a tick with nothing new reuses the last count."""
    from core.ledger import NewJob, PresetContent
    from desktop.window.tray import ProgressTray

    with Ledger(tmp_path) as ledger:
        ledger.presets.add("p", PresetContent("h", {"1": {"class_type": "EmptyImage"}}))
        ledger.create_batch("p", [NewJob({})], requester="artist")
        counted: list[int] = []
        count_by_state = ledger.count_by_state

        def counting(batch: str | None = None) -> dict[JobState, int]:
            counted.append(1)
            return count_by_state(batch=batch)

        monkeypatch.setattr(ledger, "count_by_state", counting)
        tray = ProgressTray(ledger, CONNECTED)
        try:
            tray.refresh()
            tray.refresh()
            assert len(counted) == 1
            assert "0 of 1 done" in tray.icon.toolTip()
            ledger.create_batch("p", [NewJob({})], requester="artist")
            tray.refresh()
            assert len(counted) == 2
            assert "0 of 2 done" in tray.icon.toolTip()
        finally:
            tray.stop()
