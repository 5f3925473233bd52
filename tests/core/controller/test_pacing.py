"""How a server's loop is paced: events hurry it along, but never past its offline backoff."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from core.comfy import ComfyClient, ExecutionStart, ExecutionSuccess, Status
from core.controller import server_link
from core.controller.server_link import MIN_TICK_GAP_S, ServerLink
from core.errors import ComfyUnreachable
from core.ledger import Ledger
from core.simulator import Simulator
from tests.core.controller.conftest import queue
from tests.core.helpers import FAST

pytestmark = pytest.mark.asyncio


async def slept(link: ServerLink, delay: float) -> float:
    started = time.monotonic()
    await link.sleep(delay)
    return time.monotonic() - started


async def test_events_wake_a_working_link_but_not_an_offline_one(
    ledger: Ledger, tmp_path: Path
) -> None:
    async with ComfyClient("http://127.0.0.1:9") as client:
        link = ServerLink(ledger, client, FAST, tmp_path / "out", changed=lambda: None)
        link.on_event(Status(queue_remaining=1))
        assert await slept(link, 2.0) < 1.0  # news: the next tick comes at once

        link.went_offline(ComfyUnreachable("cannot connect", "GET /queue"))
        link.on_event(Status(queue_remaining=1))  # a server flooding events while /queue fails
        assert await slept(link, 0.3) >= 0.3  # the backoff holds
        link.ours["ours"] = "job"
        link.on_event(ExecutionStart("ours"))  # held for the next tick, which the backoff paces
        assert await slept(link, 0.3) >= 0.3


async def test_ticks_woken_nonstop_keep_a_minimum_gap(
    ledger: Ledger, tmp_path: Path, simulator: Simulator
) -> None:
    async with ComfyClient(simulator.url) as client:
        link = ServerLink(ledger, client, FAST, tmp_path / "out", changed=lambda: None)
        began = time.monotonic()
        await link.tick([], paused=False)
        link.wake()
        await link.sleep(2.0)
        assert MIN_TICK_GAP_S <= time.monotonic() - began < 1.0


async def test_a_prompt_sent_this_tick_ending_refills_at_once(
    ledger: Ledger, tmp_path: Path, simulator: Simulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server_link, "MIN_TICK_GAP_S", 0.5)
    (job_id,) = queue(ledger, 1)
    async with ComfyClient(simulator.url) as client:
        link = ServerLink(ledger, client, FAST, tmp_path / "out", changed=lambda: None)
        await link.tick(ledger.live_attempts(), paused=False)
        (attempt,) = ledger.attempts(job_id)
        assert link.ours == {attempt.prompt_id: job_id}, "followed from the tick that sent it"

        link.on_event(ExecutionSuccess(prompt_id=attempt.prompt_id))
        assert await slept(link, 2.0) < 0.25, "room on the server: no gap kept"

        await link.tick(ledger.live_attempts(), paused=False)
        link.on_event(ExecutionSuccess(prompt_id="someone else's"))
        assert 0.25 < await slept(link, 2.0) < 1.0, "the gap holds"
