"""Acceptance story across the app, the background controller and the window: a batch's end
is told once on the desktop, through a real D-Bus session bus with a fake notification server
on it (tests/notification_bus.py), while a window is open on the background controller (which
sends it: the window never does), and once with the window closed; with no notification server
on the desktop, the window's tray (here its banner: offscreen has no tray) says it instead."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.batch.batch_title import batch_title
from core.job_state import JobState
from core.ledger import Ledger
from desktop.app.close_dialog import KEEP_TEXT
from desktop.app.session import Session, SessionOptions
from tests.desktop.background_helpers import (
    answer_close_dialog,
    background_controller,
    close_window,
    queue_from_window,
    states,
    until,
)

if TYPE_CHECKING:
    from pathlib import Path

    from tests.notification_bus import FakeNotificationServer


def _told(home: Path, job_id: str) -> str | None:
    with Ledger(home) as ledger:
        return ledger.notices.get(ledger.job(job_id).batch).desktop_how


def _batch(home: Path, job_id: str) -> str:
    """What the notices call the batch of ``job_id``: its title, as the batch lists do."""
    with Ledger(home) as ledger:
        return batch_title(ledger, ledger.batch(ledger.job(job_id).batch))


def test_a_batch_ending_with_the_window_open_and_one_with_it_closed_are_each_told_once(
    qtbot, qloop, home: Path, preset_copy: Path, notification_server: FakeNotificationServer
) -> None:
    options = SessionOptions(data_dir=home)
    banners: list[str] = []

    async def scenario() -> None:
        session = Session(options)
        window = await session.open()
        await background_controller(session)
        window.banner.show_message = lambda text, error=False: banners.append(text)
        ids = queue_from_window(window, preset_copy, 2)
        await until(lambda: len(ids) == 2 and _told(home, ids[0]) == "sent", seconds=60)
        await until(lambda: notification_server.count() == 1)
        (shown,) = notification_server.shown
        assert shown.summary == "Batch finished"
        assert shown.body == f"{_batch(home, ids[0])}: 2 done"
        await until(lambda: any("finished" in text for text in banners))
        # The window's own check of the tray's share runs (once a second) and adds nothing.
        await until(lambda: window.notifier.show_unshown() == [])
        assert notification_server.count() == 1

        # The window closed, "keep running": the background controller tells the next one.
        more = queue_from_window(window, preset_copy, 1)[2:]
        answer_close_dialog(KEEP_TEXT, [])
        await close_window(window, session)
        await session.close(session.finished.result())
        await until(lambda: states(home, more) == [JobState.succeeded], seconds=60)
        await until(lambda: notification_server.count() == 2, seconds=30)
        assert [s.body.split(":")[0] for s in notification_server.shown] == [
            _batch(home, ids[0]),
            _batch(home, more[0]),
        ]

    qloop.run_until_complete(scenario())


def test_without_a_notification_server_the_window_says_it_itself(
    qtbot, qloop, home: Path, preset_copy: Path
) -> None:
    options = SessionOptions(data_dir=home)
    banners: list[str] = []

    async def scenario() -> None:
        session = Session(options)
        window = await session.open()
        await background_controller(session)
        window.banner.show_message = lambda text, error=False: banners.append(text)
        ids = queue_from_window(window, preset_copy, 1)
        await until(lambda: _told(home, ids[0]) == "tray", seconds=60)
        batch = _batch(home, ids[0])
        await until(lambda: f"Batch finished: {batch}: 1 done" in banners)
        await close_window(window, session)
        await session.close(session.finished.result())

    qloop.run_until_complete(scenario())
