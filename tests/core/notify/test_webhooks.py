"""Each ended batch's webhook reaches a local aiohttp server exactly once: while it is down it
waits and comes once the server is back (within the bound), a slow answer holds nothing up, a
refusal is given up at once, and the failure is said once in the controller's status."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import aiohttp
import pytest
import pytest_asyncio

from core.batch import BatchSpec, SeedPlan
from core.comfy import ComfyClient
from core.controller import Controller
from core.controller.commands import LedgerCommands
from core.ledger import Ledger
from core.ledger.batch_notices import GIVEN_UP, PENDING, SENT, NoticeChoice
from core.notify.webhooks import WebhookLimits, WebhookSender
from simulator import Simulator
from tests.core.controller.test_controller import all_done
from tests.core.helpers import FAST, wait_for
from tests.core.notify.webhook_server import WebhookServer

pytestmark = pytest.mark.asyncio

QUICK = WebhookLimits(tries=100, first_wait_s=0.05, max_wait_s=0.2, timeout_s=5.0, idle_s=0.1)

MakeController = Callable[..., "Controller"]


@pytest_asyncio.fixture
async def hooks() -> AsyncIterator[WebhookServer]:
    server = WebhookServer()
    await server.start()
    yield server
    await server.stop()


@pytest_asyncio.fixture
async def started(tmp_path: Path) -> AsyncIterator[Callable[..., object]]:
    """``await started(ledger, simulator, limits)``: a controller with those webhook limits."""
    made: list[tuple[Controller, ComfyClient]] = []

    async def make(ledger: Ledger, simulator: Simulator, limits: WebhookLimits) -> Controller:
        client = ComfyClient(simulator.url)
        controller = Controller(
            ledger, client, config=FAST, output_dir=tmp_path / "out", webhook_limits=limits
        )
        await controller.start()
        made.append((controller, client))
        return controller

    yield make
    for controller, client in made:
        await controller.stop()
        await client.aclose()


def queue(
    ledger: Ledger, url: str, count: int = 2, template: str = "json"
) -> tuple[str, list[str]]:
    spec = BatchSpec(seeds=SeedPlan(count=count, start=1))
    notice = NoticeChoice(webhook_url=url, webhook_template=template)
    batch, ids = LedgerCommands(ledger).queue_batch("noise", spec, name="Fox", notice=notice)
    return batch.id, ids


async def test_one_json_per_finished_batch(
    ledger: Ledger, simulator: Simulator, started: Callable[..., object], hooks: WebhookServer
) -> None:
    first, ids = queue(ledger, hooks.url)
    await started(ledger, simulator, QUICK)  # type: ignore[misc]
    second, more = queue(ledger, hooks.url, count=1)
    await wait_for(all_done(ledger, ids + more), 30)
    await wait_for(lambda: len(hooks.bodies) == 2, 30)
    await wait_for(lambda: ledger.notices.get(second).webhook_state == SENT)
    by_batch = {body["batch"]["id"]: body for body in hooks.bodies}
    assert sorted(by_batch) == sorted([first, second])
    body = by_batch[first]
    assert body["batch"] == {"id": first, "name": "Fox"}
    assert body["state"] == "finished"
    assert body["counts"] == {"done": 2, "failed": 0, "cancelled": 0, "waiting": 0, "total": 2}
    assert body["text"] == "Fox: 2 done"
    assert body["finished_at"].endswith("+00:00")
    assert body["folder"].endswith(first)
    assert ledger.notices.get(first).webhook_tries == 1


async def test_nothing_is_lost_while_the_server_is_down_it_comes_once_back(
    ledger: Ledger, simulator: Simulator, started: Callable[..., object]
) -> None:
    down = WebhookServer()  # not started: nothing listens on its port
    batch, ids = queue(ledger, down.url)
    controller: Controller = await started(ledger, simulator, QUICK)  # type: ignore[assignment]
    await wait_for(all_done(ledger, ids), 30)
    await wait_for(lambda: ledger.notices.get(batch).webhook_tries >= 3, 30)
    assert ledger.notices.get(batch).webhook_state == PENDING
    assert controller.status.notice_error.startswith("The webhook for Fox failed (could not")
    said = []
    controller.add_status_listener(lambda status: said.append(status.notice_error))
    await wait_for(lambda: ledger.notices.get(batch).webhook_tries >= 6, 30)
    assert not [text for text in said if text and text != controller.status.notice_error], (
        "a failure spell is said once, not once a try"
    )
    await down.start()
    try:
        await wait_for(lambda: ledger.notices.get(batch).webhook_state == SENT, 30)
        await wait_for(lambda: controller.status.notice_error == "")
        assert [body["batch"]["id"] for body in down.bodies] == [batch]
    finally:
        await down.stop()


async def test_a_slow_webhook_does_not_slow_the_controller(
    ledger: Ledger, simulator: Simulator, started: Callable[..., object], hooks: WebhookServer
) -> None:
    hooks.hold = 30.0  # it answers after 30 s
    slow = WebhookLimits(tries=3, timeout_s=60.0)
    batch, ids = queue(ledger, hooks.url)
    controller: Controller = await started(ledger, simulator, slow)  # type: ignore[assignment]
    await wait_for(all_done(ledger, ids), 30)
    await wait_for(hooks.entered.is_set, 30)
    # While the webhook waits for its answer, the controller runs more batches through.
    more = LedgerCommands(ledger).queue_batch("noise", BatchSpec(seeds=SeedPlan(count=3)))[1]
    controller.wake()
    await wait_for(all_done(ledger, more), 30)
    assert ledger.notices.get(batch).webhook_state == PENDING, "still waiting for its answer"
    # stop() does not wait for the answer either (the controller's tasks end at once).


async def test_a_refusal_is_given_up_at_once_and_said(
    ledger: Ledger, simulator: Simulator, started: Callable[..., object], hooks: WebhookServer
) -> None:
    hooks.answer = 404
    batch, _ = queue(ledger, hooks.url)
    controller: Controller = await started(ledger, simulator, QUICK)  # type: ignore[assignment]
    await wait_for(lambda: ledger.notices.get(batch).webhook_state == GIVEN_UP, 30)
    notice = ledger.notices.get(batch)
    assert (notice.webhook_tries, notice.webhook_error) == (1, "it answered 404")
    await wait_for(lambda: "gave up after 1 tries" in controller.status.notice_error)


async def test_the_tries_are_bounded(ledger: Ledger, hooks: WebhookServer) -> None:
    hooks.answer = 503
    batch, _ = queue(ledger, hooks.url, count=1)
    ledger.notices.take_end(batch, "finished", '{"batch": {"name": "Fox"}}')
    said: list[str] = []
    sender = WebhookSender(ledger, WebhookLimits(tries=3, first_wait_s=0.0), said.append)
    async with aiohttp.ClientSession() as session:
        for _ in range(5):
            await sender.send_due(session)
    notice = ledger.notices.get(batch)
    assert (notice.webhook_state, notice.webhook_tries) == (GIVEN_UP, 3)
    assert said == [
        "The webhook for Fox failed (it answered 503); trying again.",
        "The webhook for Fox failed (it answered 503); gave up after 3 tries.",
    ]


async def test_past_the_most_waiting_the_oldest_are_given_up(ledger: Ledger) -> None:
    batches = [queue(ledger, "http://127.0.0.1:9/hook", count=1)[0] for _ in range(3)]
    for batch in batches:
        ledger.notices.take_end(batch, "finished", "{}")
    sender = WebhookSender(ledger, WebhookLimits(max_waiting=2, first_wait_s=60.0))
    async with aiohttp.ClientSession() as session:
        await sender.send_due(session)
    oldest, *others = [ledger.notices.get(batch) for batch in batches]
    assert (oldest.webhook_state, oldest.webhook_error) == (GIVEN_UP, "too many waiting")
    assert [n.webhook_state for n in others] == [PENDING, PENDING]
