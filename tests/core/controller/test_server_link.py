"""One ComfyUI server as the controller drives it (``ServerLink``): how its loop is paced
(events hurry it along, but never past its offline backoff; a tick's downloads do not wait for
its POSTs); a flaky or stuck server ridden out and named in the status while the other servers
go on; work spread over several servers, each prompt followed where it was sent.

No bound here is on how fast this machine is: "at once" is a sleep toward a poll (or gap) a
minute away that ends well before it; "held" is a lower bound on what was waited.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from core.comfy import ComfyClient, ExecutionStart, ExecutionSuccess, Status
from core.controller import Connection, Controller, server_link
from core.controller.server_link import MIN_TICK_GAP_S, ServerLink
from core.errors import ComfyUnreachable, InputError
from core.job_state import AttemptResult, JobState, Reason
from core.ledger import Ledger
from simulator import Simulator
from tests.core.conftest import MakeSimulator
from tests.core.controller.conftest import MakeController, executions, queue
from tests.core.controller.test_controller import all_done, states
from tests.core.helpers import FAST, wait_for
from tests.core.hostile import GB, HostileServer, answer_json, huge, trickle

pytestmark = pytest.mark.asyncio


@pytest.mark.expect_log("core.controller.controller")
async def test_a_flaky_queue_route_is_ridden_out(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    """Half the polls answer 500: the controller backs off and carries on; nothing runs twice."""
    simulator: Simulator = await make_simulator(  # type: ignore[misc]
        faults={"error_rate": 0.5, "routes": ["GET /queue"]}, seed=3
    )
    ids = queue(ledger, 4)
    await make_controller(ledger, simulator)
    await wait_for(all_done(ledger, ids), 40)
    assert states(ledger, ids) == [JobState.succeeded] * 4
    for job_id in ids:
        assert executions(simulator, ledger, job_id) == 1


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


def stuck_status(controller: Controller, url: str, text: str) -> bool:
    server = next(s for s in controller.status.servers if s.server == url)
    return server.connection == Connection.offline and text in server.last_error


@pytest.mark.parametrize(
    ("behaviour", "error", "what"),
    [
        (
            trickle(0.05),
            "GET /queue: no complete answer within 1 s (the server is stuck)",
            "is unreachable",
        ),
        (
            huge(GB),
            "GET /queue: answer exceeds the limit of 16 MiB, not read further",
            "answered unexpectedly",
        ),
    ],
    ids=["trickle", "1 GB"],
)
@pytest.mark.expect_log("core.controller.controller")
async def test_a_stuck_server_is_named_and_the_other_one_does_the_work(
    ledger: Ledger,
    simulator: Simulator,
    hostile: HostileServer,
    make_controller: MakeController,
    caplog: pytest.LogCaptureFixture,
    behaviour: object,
    error: str,
    what: str,
) -> None:
    hostile.behaviours["GET /queue"] = behaviour  # type: ignore[assignment]
    ids = queue(ledger, 4)
    controller = await make_controller(
        ledger,
        [hostile, simulator],  # type: ignore[list-item]
        client_timeout=httpx.Timeout(1.0),
    )
    await wait_for(lambda: all(ledger.job(j).state is JobState.succeeded for j in ids), 30)
    assert {ledger.attempts(j)[-1].server for j in ids} == {simulator.url}
    await wait_for(lambda: stuck_status(controller, hostile.url, error), 10)
    await wait_for(lambda: hostile.requests["GET /queue"] >= 2, 10)  # the stuck one is retried
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings.count(f"ComfyUI at {hostile.url} {what}: {error}") == 1  # once, not per try


@pytest.mark.expect_log("core.controller.controller")
async def test_the_status_says_first_in_plain_words_why_a_server_is_offline(
    ledger: Ledger, make_controller: MakeController
) -> None:
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        nowhere = SimpleNamespace(url=f"http://127.0.0.1:{sock.getsockname()[1]}")
    controller = await make_controller(ledger, nowhere)  # type: ignore[arg-type]
    await wait_for(lambda: controller.status.connection == Connection.offline, 10)
    error = controller.status.last_error
    assert error.startswith("nothing listens on that port (is ComfyUI started?): GET /queue: ")
    assert "cannot connect" in error, "the technical error follows"


def done(ledger: Ledger, ids: list[str]):  # type: ignore[no-untyped-def]
    return lambda: all(state.is_terminal for state in states(ledger, ids))


def runs(simulators: list[Simulator], prompt_id: str) -> int:
    return sum(s.execution_count(prompt_id) for s in simulators)


async def test_a_batch_spreads_over_both_servers_within_each_ones_cap(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    sims: list[Simulator] = [await make_simulator(job_seconds=0.15) for _ in range(2)]  # type: ignore[misc]
    ids = queue(ledger, 12)
    controller = await make_controller(ledger, sims, global_cap=2)
    peaks = {sim.url: 0 for sim in sims}

    def track(status: object) -> None:
        for server in controller.status.servers:
            peaks[server.server] = max(peaks[server.server], server.queue)

    controller.add_status_listener(track)
    await wait_for(done(ledger, ids), 30)
    assert states(ledger, ids) == [JobState.succeeded] * 12
    used = {ledger.attempts(job_id)[-1].server for job_id in ids}
    assert used == {sim.url for sim in sims}, "both GPUs worked"
    assert all(0 < peak <= 2 for peak in peaks.values()), peaks
    for job_id in ids:
        (attempt,) = ledger.attempts(job_id)
        assert runs(sims, attempt.prompt_id) == 1
        server = next(s for s in sims if s.url == attempt.server)
        assert server.execution_count(attempt.prompt_id) == 1, "ran where it was sent"


async def test_status_shows_each_server_and_the_sums(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    sims: list[Simulator] = [await make_simulator(job_seconds=0.5) for _ in range(2)]  # type: ignore[misc]
    ids = queue(ledger, 6)
    controller = await make_controller(ledger, sims, global_cap=2)

    def both_busy() -> bool:
        status = controller.status
        return len(status.positions) == 4 and all(s.queue == 2 for s in status.servers)

    await wait_for(both_busy, 15)
    status = controller.status
    assert status.connection == Connection.connected
    assert status.server == f"{sims[0].url}, {sims[1].url}"
    assert [s.server for s in status.servers] == [sims[0].url, sims[1].url]
    assert status.server_queue == 4
    assert status.in_flight == 4
    assert sorted(status.positions.values()) == [0, 0, 1, 1]
    await wait_for(done(ledger, ids), 30)


async def test_one_server_restarting_loses_nothing_and_runs_nothing_twice(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    sims: list[Simulator] = [await make_simulator(job_seconds=0.3) for _ in range(2)]  # type: ignore[misc]
    ids = queue(ledger, 10)
    await make_controller(ledger, sims)
    await wait_for(lambda: states(ledger, ids).count(JobState.succeeded) >= 2, 20)
    await sims[1].restart()
    await wait_for(done(ledger, ids), 40)
    assert states(ledger, ids) == [JobState.succeeded] * 10
    lost = [a for job_id in ids for a in ledger.attempts(job_id) if a.result == AttemptResult.lost]
    assert lost, "the restart lost the prompts the second server held"
    assert {a.server for a in lost} == {sims[1].url}
    assert all(a.reason == Reason.server_lost for a in lost)
    for job_id in ids:
        attempts = ledger.attempts(job_id)
        assert [a.result for a in attempts].count(AttemptResult.succeeded) == 1
        for attempt in attempts:
            assert runs(sims, attempt.prompt_id) <= 1


async def test_cancel_reaches_the_server_that_runs_the_job(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    sims: list[Simulator] = [await make_simulator(job_seconds=1.5) for _ in range(2)]  # type: ignore[misc]
    ids = queue(ledger, 2)
    controller = await make_controller(ledger, sims, global_cap=1)
    await wait_for(lambda: states(ledger, ids) == [JobState.running] * 2, 15)
    on_second = next(j for j in ids if ledger.attempts(j)[-1].server == sims[1].url)
    other = next(j for j in ids if j != on_second)
    controller.cancel([on_second])
    await wait_for(done(ledger, [on_second]), 15)
    assert ledger.job(on_second).state is JobState.cancelled
    assert ledger.job(on_second).reason == Reason.cancelled
    assert ledger.job(other).state is JobState.running, "the other server's job runs on"
    await wait_for(done(ledger, ids), 15)
    assert ledger.job(other).state is JobState.succeeded


async def test_the_same_server_twice_is_refused(ledger: Ledger, simulator: Simulator) -> None:
    from core.comfy import ComfyClient

    async with ComfyClient(simulator.url) as one, ComfyClient(simulator.url) as two:
        with pytest.raises(InputError, match="distinct servers"):
            Controller(ledger, [one, two], config=FAST, output_dir=ledger.folder / "out")


# --- what each server can run ----------------------------------------------------------------


@pytest.mark.asyncio
async def test_the_models_are_read_on_connect_and_again_after_a_restart(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    """A restart may bring other files: they are read again without being asked."""
    sim = await make_simulator(models={"checkpoints": ["tiny-a.safetensors"]})
    await make_controller(ledger, sim)
    await wait_for(lambda: checkpoints_stored(ledger, sim.url) == ["tiny-a.safetensors"], 10)
    read_at = ledger.server_offers.all()[sim.url].read_at
    sim.set_models({"checkpoints": ["tiny-b.safetensors"]})
    await asyncio.sleep(0.3)  # ticks go on: the offer is not read per tick
    assert ledger.server_offers.all()[sim.url].read_at == read_at
    await sim.restart()
    await wait_for(lambda: checkpoints_stored(ledger, sim.url) == ["tiny-b.safetensors"], 10)


@pytest.mark.asyncio
@pytest.mark.expect_log("core.controller.controller")
async def test_a_server_whose_models_cannot_be_read_is_sent_nothing(
    ledger: Ledger, simulator: Simulator, hostile: HostileServer, make_controller: MakeController
) -> None:
    """Its queue answers, its /object_info does not: the other server does all the work."""
    hostile.behaviours["GET /queue"] = answer_json({"queue_running": [], "queue_pending": []})
    ids = queue(ledger, 4)
    await make_controller(ledger, [hostile, simulator])  # type: ignore[list-item]
    await wait_for(lambda: all(ledger.job(j).state is JobState.succeeded for j in ids), 30)
    assert hostile.requests["GET /object_info"] >= 1
    assert hostile.requests["POST /prompt"] == 0


def checkpoints_stored(ledger: Ledger, url: str) -> list[str]:
    stored = ledger.server_offers.all().get(url)
    return [] if stored is None else stored.offer.listing().get("checkpoints", [])
