"""How a server's loop is paced: events hurry it along, but never past its offline backoff;
a tick's downloads do not wait for its POSTs.

No bound here is on how fast this machine is: "at once" is a sleep toward a poll (or gap) a
minute away that ends well before it; "held" is a lower bound on what was waited.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

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


LONG_S = 60.0  # a poll interval or tick gap that, kept, would outlast the test
WOKEN_WITHIN_S = 20.0  # well below it: bounds a hang, not the machine's speed


async def slept(link: ServerLink, delay: float) -> float:
    started = time.monotonic()
    await link.sleep(delay)
    return time.monotonic() - started


async def woken(link: ServerLink, why: str) -> None:
    """Sleep toward a next tick a minute away; fail unless a wake-up ended it well before."""
    try:
        async with asyncio.timeout(WOKEN_WITHIN_S):
            await link.sleep(LONG_S)
    except TimeoutError:
        raise AssertionError(f"still asleep after {WOKEN_WITHIN_S:g} s: {why}") from None


class HeldPosts(ComfyClient):
    """A client whose ``POST /prompt`` waits until the test lets it go (``posts.set()``)."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.posts = asyncio.Event()

    async def submit(self, *args: Any, **kwargs: Any) -> Any:
        await self.posts.wait()
        return await super().submit(*args, **kwargs)


async def test_events_wake_a_working_link_but_not_an_offline_one(
    ledger: Ledger, tmp_path: Path
) -> None:
    async with ComfyClient("http://127.0.0.1:9") as client:
        link = ServerLink(ledger, client, FAST, tmp_path / "out", changed=lambda: None)
        link.on_event(Status(queue_remaining=1))
        await woken(link, "news: the next tick comes at once")

        link.went_offline(ComfyUnreachable("cannot connect", "GET /queue"))
        link.on_event(Status(queue_remaining=1))  # a server flooding events while /queue fails
        assert await slept(link, 0.3) >= 0.3  # the backoff holds
        link.server.ours["ours"] = "job"
        link.on_event(ExecutionStart("ours"))  # held for the next tick, which the backoff paces
        assert await slept(link, 0.3) >= 0.3


async def test_ticks_woken_nonstop_keep_a_minimum_gap(
    ledger: Ledger, tmp_path: Path, simulator: Simulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A wake-up ends the sleep toward the next poll, but the next tick still waits until
    ``MIN_TICK_GAP_S`` after the last one began (made 0.3 s: longer than a tick here takes)."""
    assert MIN_TICK_GAP_S > 0
    monkeypatch.setattr(server_link, "MIN_TICK_GAP_S", 0.3)
    async with ComfyClient(simulator.url) as client:
        link = ServerLink(ledger, client, FAST, tmp_path / "out", changed=lambda: None)
        began = time.monotonic()
        await link.tick([], paused=False)
        link.wake()
        await woken(link, "woken, it waits for the gap only")
        assert time.monotonic() - began >= 0.3, "the gap holds"


async def test_a_prompt_sent_this_tick_ending_refills_at_once(
    ledger: Ledger, tmp_path: Path, simulator: Simulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One of ours ending wakes the link past the tick gap (made a minute: kept, the test would
    time out); someone else's prompt ending wakes it too, but the gap (then 0.5 s) holds."""
    monkeypatch.setattr(server_link, "MIN_TICK_GAP_S", LONG_S)
    (job_id,) = queue(ledger, 1)
    async with ComfyClient(simulator.url) as client:
        link = ServerLink(ledger, client, FAST, tmp_path / "out", changed=lambda: None)
        await link.tick(ledger.live_attempts(), paused=False)
        (attempt,) = ledger.attempts(job_id)
        assert link.server.ours == {attempt.prompt_id: job_id}, (
            "followed from the tick that sent it"
        )

        link.on_event(ExecutionSuccess(prompt_id=attempt.prompt_id))
        await woken(link, "room on the server: no gap kept")

        monkeypatch.setattr(server_link, "MIN_TICK_GAP_S", 0.5)
        began = time.monotonic()
        await link.tick(ledger.live_attempts(), paused=False)
        link.on_event(ExecutionSuccess(prompt_id="someone else's"))
        await woken(link, "someone else's prompt ending is news too")
        assert time.monotonic() - began >= 0.5, "the gap holds"


async def test_a_tick_downloads_finished_pictures_while_its_posts_wait_for_answers(
    ledger: Ledger, tmp_path: Path, simulator: Simulator
) -> None:
    """The first's picture is downloaded while the second's POST is held unanswered (until the
    picture is there: a tick that posted first would never get to it)."""
    first, second = queue(ledger, 2)
    out = tmp_path / "out"
    config = replace(FAST, global_cap=1)
    async with HeldPosts(simulator.url) as client:
        link = ServerLink(ledger, client, config, out, changed=lambda: None)
        client.posts.set()
        await link.tick(ledger.live_attempts(), paused=False)  # sends the first
        (sent,) = ledger.attempts(first)
        await wait_for(lambda: sent.prompt_id in simulator.state.history)

        client.posts.clear()
        tick = asyncio.create_task(link.tick(ledger.live_attempts(), paused=False))
        try:
            await wait_for(lambda: any(out.rglob("*.png")))
            assert not tick.done(), "the first's picture came while the second's POST waited"
        finally:
            client.posts.set()
            await tick
    assert ledger.job(first).state is JobState.succeeded
    assert ledger.job(second).state is JobState.queued


async def test_a_prompt_ending_before_its_post_is_answered_refills_at_once(
    ledger: Ledger, tmp_path: Path, make_simulator: MakeSimulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Our prompt ending before its POST was answered still wakes the link past the gap (made a
    minute)."""
    monkeypatch.setattr(server_link, "MIN_TICK_GAP_S", LONG_S)
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
        await woken(link, "room on the server: no gap kept")
