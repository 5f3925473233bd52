"""The controller tells each batch's end once, on a real D-Bus session bus with a fake
notification server on it (tests/notification_bus.py): no window, the controller alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.batch import BatchSpec, SeedPlan
from core.batch.batch_title import batch_title
from core.batch.spec import GridAxis
from core.comfy import ComfyClient
from core.controller import Controller
from core.controller.commands import LedgerCommands
from core.job_state import JobState
from core.ledger import Ledger
from core.ledger.batch_notices import NoticeChoice
from core.ledger.settings import NOTIFY_DESKTOP, PAUSED, SERVER
from core.notify import notifier
from simulator import Simulator
from tests.core.conftest import MakeSimulator
from tests.core.controller.conftest import MakeController
from tests.core.controller.model_servers import BASE, NOWHERE, add_ckpt_preset
from tests.core.controller.test_controller import all_done
from tests.core.helpers import FAST, wait_for
from tests.core.notify.webhook_server import WebhookServer
from tests.notification_bus import FakeNotificationServer

pytestmark = pytest.mark.asyncio


def queue(
    ledger: Ledger, count: int, name: str | None = None, notice: NoticeChoice | None = None
) -> tuple[str, list[str]]:
    spec = BatchSpec(seeds=SeedPlan(count=count, start=1))
    batch, ids = LedgerCommands(ledger).queue_batch("noise", spec, name=name, notice=notice)
    return batch.id, ids


async def test_a_batch_that_ends_is_told_once_with_its_counts_and_not_again_after_a_restart(
    ledger: Ledger,
    simulator: Simulator,
    make_controller: MakeController,
    notification_server: FakeNotificationServer,
) -> None:
    batch, ids = queue(ledger, 3, name="Portrait · 3 seeds")
    controller = await make_controller(ledger, simulator)
    await wait_for(all_done(ledger, ids), 30)
    await wait_for(lambda: ledger.notices.get(batch).desktop_how == "sent")
    (shown,) = notification_server.shown
    assert (shown.app_name, shown.summary) == ("Batchline", "Batch finished")
    assert shown.body == "Portrait · 3 seeds: 3 done"
    await controller.stop()

    # Another controller (a restart) on the same ledger: the first batch is not told again,
    # a new one is, once.
    second, more = queue(ledger, 1)
    await make_controller(ledger, simulator)
    await wait_for(all_done(ledger, more), 30)
    await wait_for(lambda: ledger.notices.get(second).desktop_how == "sent")
    assert [s.body for s in notification_server.shown] == [
        "Portrait · 3 seeds: 3 done",
        f"{batch_title(ledger, ledger.batch(second))}: 1 done",
    ]


async def test_a_batch_whose_jobs_all_failed_is_told_as_failed(
    ledger: Ledger,
    simulator: Simulator,
    make_controller: MakeController,
    notification_server: FakeNotificationServer,
) -> None:
    batch, ids = queue(ledger, 2)
    await make_controller(ledger, simulator)
    LedgerCommands(ledger).cancel([ids[0]])
    await wait_for(all_done(ledger, ids), 30)
    await wait_for(lambda: ledger.notices.get(batch).desktop_how == "sent")
    (shown,) = notification_server.shown
    done = ledger.job(ids[1]).state is JobState.succeeded
    assert shown.summary == ("Batch finished" if done else "Batch cancelled")
    assert "1 cancelled" in shown.body


async def test_off_for_the_batch_or_in_the_settings_nothing_is_shown(
    ledger: Ledger,
    simulator: Simulator,
    make_controller: MakeController,
    notification_server: FakeNotificationServer,
) -> None:
    quiet, _ = queue(ledger, 1, notice=NoticeChoice(desktop=False))
    await make_controller(ledger, simulator)
    await wait_for(lambda: ledger.notices.get(quiet).desktop_how == "off", 30)
    NOTIFY_DESKTOP.set(ledger, False)
    loud, _ = queue(ledger, 1)
    await wait_for(lambda: ledger.notices.get(loud).desktop_how == "off", 30)
    assert notification_server.count() == 0
    NOTIFY_DESKTOP.set(ledger, True)
    told, _ = queue(ledger, 1)
    await wait_for(lambda: ledger.notices.get(told).desktop_how == "sent", 30)
    assert notification_server.count() == 1


async def test_without_a_notification_server_the_end_waits_for_a_window_s_tray(
    ledger: Ledger, simulator: Simulator, make_controller: MakeController
) -> None:
    batch, _ = queue(ledger, 1)
    await make_controller(ledger, simulator)
    await wait_for(lambda: ledger.notices.get(batch).desktop_how == "no_server", 30)
    (taken,) = ledger.notices.take_tray()
    assert taken.batch_id == batch
    assert ledger.notices.take_tray() == [], "the tray is given it once"


async def test_a_pause_with_jobs_waiting_needs_attention_once(
    ledger: Ledger,
    simulator: Simulator,
    make_controller: MakeController,
    notification_server: FakeNotificationServer,
) -> None:
    PAUSED.set(ledger, True)
    batch, _ = queue(ledger, 2, name="Fox")
    controller = await make_controller(ledger, simulator)
    await wait_for(lambda: notification_server.count() == 1, 30)
    (shown,) = notification_server.shown
    assert shown.summary == "Batch needs attention"
    assert shown.body == "Fox: 0 done, 2 waiting (sending is paused)"
    controller.resume()
    await wait_for(lambda: ledger.notices.get(batch).desktop_how == "sent", 30)
    controller.pause()
    await wait_for(lambda: notification_server.count() == 2, 30)
    assert [s.summary for s in notification_server.shown] == [
        "Batch needs attention",
        "Batch finished",
    ]


async def test_a_controller_that_stops_once_idle_still_tells_the_last_batch_and_its_webhook(
    ledger: Ledger,
    simulator: Simulator,
    tmp_path: Path,
    notification_server: FakeNotificationServer,
) -> None:
    hooks = WebhookServer()
    await hooks.start()
    try:
        batch, _ = queue(ledger, 1, notice=NoticeChoice(webhook_url=hooks.url))
        client = ComfyClient(simulator.url)
        controller = Controller(ledger, client, config=FAST, output_dir=tmp_path / "out")
        await controller.run_until_idle()  # it stops as soon as the last job ended
        await client.aclose()
    finally:
        await hooks.stop()
    assert ledger.notices.get(batch).desktop_how == "sent"
    assert notification_server.count() == 1
    assert [body["batch"]["id"] for body in hooks.bodies] == [batch]


async def test_a_batch_whose_jobs_wait_for_a_model_no_server_has_needs_attention_once(
    ledger: Ledger,
    make_simulator: MakeSimulator,
    make_controller: MakeController,
    notification_server: FakeNotificationServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(notifier, "WAITS_FOR_S", 1.0)
    monkeypatch.setattr(notifier, "LOOK_AGAIN_S", 0.1)
    simulator = await make_simulator(models={"checkpoints": [BASE]})
    SERVER.set(ledger, simulator.url)
    add_ckpt_preset(ledger)
    spec = BatchSpec(seeds=SeedPlan(count=2), grid=(GridAxis("4.ckpt_name", (NOWHERE,)),))
    controller = await make_controller(ledger, simulator)
    batch, _ = controller.queue_batch("ckpt", spec, name="Fox")
    await wait_for(lambda: notification_server.count() == 1, 30)
    (shown,) = notification_server.shown
    assert shown.summary == "Batch needs attention"
    assert shown.body == f"Fox: 0 done, 2 waiting (no server has {NOWHERE})"
    assert ledger.notices.get(batch.id).attention == {"waits"}
