"""How a server's loop is paced: events hurry it along, but never past its offline backoff;
a tick's downloads do not wait for its POSTs."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from pathlib import Path

import pytest

from core.comfy import ComfyClient, ExecutionStart, ExecutionSuccess, Status
from core.controller import server_link
from core.controller.server_link import MIN_TICK_GAP_S, ServerLink
from core.errors import ComfyUnreachable
from core.job_state import JobState
from core.ledger import Ledger
from core.simulator import Simulator
from tests.core.conftest import MakeSimulator
from tests.core.controller.conftest import queue
from tests.core.helpers import FAST, wait_for

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
        link.server.ours["ours"] = "job"
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
        assert link.server.ours == {attempt.prompt_id: job_id}, (
            "followed from the tick that sent it"
        )

        link.on_event(ExecutionSuccess(prompt_id=attempt.prompt_id))
        assert await slept(link, 2.0) < 0.25, "room on the server: no gap kept"

        await link.tick(ledger.live_attempts(), paused=False)
        link.on_event(ExecutionSuccess(prompt_id="someone else's"))
        assert 0.25 < await slept(link, 2.0) < 1.0, "the gap holds"


async def test_a_tick_downloads_finished_pictures_while_its_posts_wait_for_answers(
    ledger: Ledger, tmp_path: Path, simulator: Simulator
) -> None:
    first, second = queue(ledger, 2)
    out = tmp_path / "out"
    config = replace(FAST, global_cap=1)
    async with ComfyClient(simulator.url) as client:
        link = ServerLink(ledger, client, config, out, changed=lambda: None)
        await link.tick(ledger.live_attempts(), paused=False)  # sends the first
        (sent,) = ledger.attempts(first)
        await wait_for(lambda: sent.prompt_id in simulator.state.history)

        simulator.set_faults(delay_seconds=1.0, routes=["POST /prompt"])
        tick = asyncio.create_task(link.tick(ledger.live_attempts(), paused=False))
        try:
            await wait_for(lambda: any(out.rglob("*.png")), within=0.8)
            assert not tick.done(), "the first's picture came while the second's POST waited"
        finally:
            await tick
    assert ledger.job(first).state is JobState.succeeded
    assert ledger.job(second).state is JobState.queued


async def test_a_prompt_ending_before_its_post_is_answered_refills_at_once(
    ledger: Ledger, tmp_path: Path, make_simulator: MakeSimulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server_link, "MIN_TICK_GAP_S", 2.0)
    faults = {"late_answer_rate": 1.0, "late_seconds": 0.3, "routes": ["POST /prompt"]}
    simulator = await make_simulator(faults=faults)
    (job_id,) = queue(ledger, 1)
    async with ComfyClient(simulator.url) as client:
        link = ServerLink(ledger, client, FAST, tmp_path / "out", changed=lambda: None)
        tick = asyncio.create_task(link.tick(ledger.live_attempts(), paused=False))
        try:
            await wait_for(lambda: bool(ledger.attempts(job_id)))
            (attempt,) = ledger.attempts(job_id)
            assert link.server.ours == {attempt.prompt_id: job_id}, "ours from before its POST"
            link.on_event(ExecutionSuccess(prompt_id=attempt.prompt_id))
        finally:
            await tick
        assert await slept(link, 5.0) < 1.0, "room on the server: no gap kept"
