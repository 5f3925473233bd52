"""One controller, two ComfyUI servers: work spreads, each prompt is followed where it was sent."""

from __future__ import annotations

import pytest

from core.controller import Connection, Controller
from core.errors import InputError
from core.job_state import AttemptResult, JobState, Reason
from core.ledger import Ledger
from simulator import Simulator
from tests.core.conftest import MakeSimulator
from tests.core.controller.conftest import MakeController, queue
from tests.core.helpers import FAST, wait_for

pytestmark = pytest.mark.asyncio


def states(ledger: Ledger, ids: list[str]) -> list[JobState]:
    return [ledger.job(job_id).state for job_id in ids]


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
