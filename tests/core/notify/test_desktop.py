"""The desktop's notifications on a real session bus (dbus-daemon) with a fake freedesktop
notification server on it, and what is said when there is none."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.notify.desktop import NO_SERVER, SENT, DesktopNotices
from tests.notification_bus import FakeNotificationServer, SessionBus, dbus_daemon

pytestmark = pytest.mark.asyncio


async def test_a_notification_reaches_the_server_on_the_session_bus(
    notification_server: FakeNotificationServer,
) -> None:
    said = await DesktopNotices().send("Batch finished", "Fox & co · 3 seeds: 3 done")
    assert said == SENT
    (shown,) = notification_server.shown
    assert (shown.app_name, shown.summary) == ("Batchline", "Batch finished")
    assert shown.body == "Fox & co · 3 seeds: 3 done", "no markup: the text as it is"
    assert shown.hints["desktop-entry"].value == "batchline"


async def test_no_session_bus_is_no_server(tmp_path: Path) -> None:
    said = await DesktopNotices(f"unix:path={tmp_path}/none").send("Batch finished", "x")
    assert said == NO_SERVER


@pytest.mark.skipif(dbus_daemon() is None, reason="dbus-daemon is not installed (package dbus)")
async def test_a_bus_without_a_notification_server_is_no_server(tmp_path: Path) -> None:
    bus = SessionBus(tmp_path)
    try:
        assert await DesktopNotices(bus.address).send("Batch finished", "x") == NO_SERVER
    finally:
        bus.stop()
