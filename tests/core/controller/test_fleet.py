"""Placement in the controller, over real simulators with different model lists: every job
where it can run, in the order that keeps models loaded."""

from __future__ import annotations

import copy
import socket
from types import SimpleNamespace
from typing import Any

import pytest

from core.batch import BatchSpec, GridAxis, SeedPlan, queue_batch
from core.controller.placing import servers_now, why_waiting
from core.job_state import JobState
from core.ledger import Ledger, PresetContent
from core.ledger.settings import PAUSED
from core.placement.model_order import OrderBound
from core.presets import workflow_hash
from tests.core.conftest import MakeSimulator
from tests.core.controller.conftest import MakeController
from tests.core.helpers import wait_for
from tests.simulator.sim_helpers import checkpoint

A, B = "tiny-a.safetensors", "tiny-b.safetensors"
BASE, REFINER = "sd_xl_base_1.0.safetensors", "sd_xl_refiner_1.0.safetensors"
SD15 = "v1-5-pruned-emaonly.safetensors"


def sd_preset(ledger: Ledger, workflow: dict[str, Any] | None = None, name: str = "sd") -> str:
    workflow = workflow or checkpoint(steps=2)
    ledger.presets.add(name, PresetContent(workflow_hash(workflow), workflow))
    return name


def base_and_refiner() -> dict[str, Any]:
    """SDXL's two checkpoints in one prompt: the base samples, the refiner finishes."""
    workflow = copy.deepcopy(checkpoint(steps=2))
    workflow["4"]["inputs"]["ckpt_name"] = BASE
    workflow["10"] = {"class_type": "CheckpointLoaderSimple", "inputs": {"ckpt_name": REFINER}}
    refine = copy.deepcopy(workflow["3"])
    refine["inputs"] |= {"model": ["10", 0], "latent_image": ["3", 0], "denoise": 0.3}
    workflow["11"] = refine
    workflow["8"]["inputs"]["samples"] = ["11", 0]
    return workflow


def queue_models(
    ledger: Ledger, *models: str, seeds: int = 1, preset: str = "sd", outer: str = "ckpt"
) -> list[str]:
    """A grid over checkpoints and prompts; ``outer``: which axis changes least often."""
    ckpt = GridAxis("4.ckpt_name", tuple(models))
    seed = GridAxis("6.text", tuple(f"a fox, take {n}" for n in range(1, seeds + 1)))
    grid = (ckpt, seed) if outer == "ckpt" else (seed, ckpt)
    return queue_batch(ledger, preset, BatchSpec(seeds=SeedPlan(count=1), grid=grid))[1]


def model_of(ledger: Ledger, job_id: str) -> str:
    return str(ledger.job(job_id).params["4.ckpt_name"])


def last_server(ledger: Ledger, job_id: str) -> str:
    return ledger.attempts(job_id)[-1].server


def succeeded(ledger: Ledger, ids: list[str]) -> bool:
    return all(ledger.job(j).state is JobState.succeeded for j in ids)


def run_order(ledger: Ledger, ids: list[str]) -> list[str]:
    """The jobs by when their (last) attempt was written."""
    return sorted(ids, key=lambda j: ledger.attempts(j)[-1].created_at)


@pytest.mark.asyncio
async def test_every_job_lands_on_a_server_that_has_its_model(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    has_a = await make_simulator(models={"checkpoints": [A]})
    has_b = await make_simulator(models={"checkpoints": [B]})
    sd_preset(ledger)
    ids = queue_models(ledger, A, B, seeds=4, outer="seed")  # alternating A, B, A, B...
    await make_controller(ledger, [has_a, has_b])
    await wait_for(lambda: succeeded(ledger, ids), 30)
    where = {A: has_a.url, B: has_b.url}
    assert all(last_server(ledger, j) == where[model_of(ledger, j)] for j in ids)
    assert all(len(ledger.attempts(j)) == 1 for j in ids), "none was refused first"
    assert has_a.state.model_loads == {A: 1}
    assert has_b.state.model_loads == {B: 1}
    stored = ledger.server_offers.all()
    assert stored[has_a.url].offer.listing()["checkpoints"] == [A]
    assert stored[has_b.url].offer.listing()["checkpoints"] == [B]


@pytest.mark.asyncio
async def test_a_line_headed_by_jobs_another_server_runs_does_not_block_those_behind(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    """20 jobs of B (past a page of the line) then 2 of A: A's server runs them meanwhile."""
    has_a = await make_simulator(models={"checkpoints": [A]})
    has_b = await make_simulator(models={"checkpoints": [B]}, job_seconds=0.2)
    sd_preset(ledger)
    many_b = queue_models(ledger, B, seeds=20)
    two_a = queue_models(ledger, A, seeds=2)
    await make_controller(ledger, [has_a, has_b])
    await wait_for(lambda: succeeded(ledger, two_a), 30)
    assert not succeeded(ledger, many_b), "the A jobs did not wait for the B jobs"
    await wait_for(lambda: succeeded(ledger, many_b), 60)
    assert {last_server(ledger, j) for j in two_a} == {has_a.url}


@pytest.mark.asyncio
@pytest.mark.expect_log("core.controller.controller")
async def test_a_job_no_server_can_run_waits_with_its_reason_until_one_starts(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    """The second server is configured but not started: once it starts, the job goes there."""
    has_a = await make_simulator(models={"checkpoints": [A]})
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    later_url = f"http://127.0.0.1:{port}"
    sd_preset(ledger)
    (runs_now,) = queue_models(ledger, A)
    (waits,) = queue_models(ledger, B)

    address = SimpleNamespace(url=later_url)
    controller = await make_controller(ledger, [has_a, address])
    await wait_for(lambda: succeeded(ledger, [runs_now]), 30)
    await wait_for(lambda: why_waiting(ledger, ledger.job(waits)) == f"no server has {B}", 10)
    assert ledger.job(waits).state is JobState.pending
    assert not [a for a in ledger.attempts(waits) if a.server], "never sent"
    has_b = await make_simulator(models={"checkpoints": [B]}, port=port)
    await wait_for(lambda: succeeded(ledger, [waits]), 30)
    assert last_server(ledger, waits) == has_b.url == later_url
    controller.check_alive()


@pytest.mark.asyncio
async def test_a_two_checkpoint_batch_on_one_server_switches_once_per_checkpoint(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    """Queued alternating (A, B, A, B, ...), it runs grouped: each checkpoint loads once."""
    sim = await make_simulator(models={"checkpoints": [A, B]}, model_load_s=0.05)
    sd_preset(ledger)
    ids = queue_models(ledger, A, B, seeds=4, outer="seed")
    await make_controller(ledger, sim)
    await wait_for(lambda: succeeded(ledger, ids), 30)
    assert sim.state.model_loads == {A: 1, B: 1}
    order = [model_of(ledger, j) for j in run_order(ledger, ids)]
    assert order == [A] * 4 + [B] * 4
    reasons = {ledger.attempts(j)[-1].placed_because for j in ids}
    assert f"{sim.url}: its loaded model" in reasons


@pytest.mark.asyncio
async def test_the_bound_keeps_a_job_of_another_model_from_waiting_longer(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    """Passed over at most ``max_passed`` times: B goes after two A jobs went before it."""
    sim = await make_simulator(models={"checkpoints": [A, B]})
    sd_preset(ledger)
    first = queue_models(ledger, A)
    lone = queue_models(ledger, B)
    rest = queue_models(ledger, A, seeds=6)
    PAUSED.set(ledger, True)
    controller = await make_controller(ledger, sim, global_cap=1)
    controller.fleet.bound = OrderBound(max_passed=2)
    controller.resume()
    ids = first + lone + rest
    await wait_for(lambda: succeeded(ledger, ids), 30)
    order = run_order(ledger, ids)
    assert order.index(lone[0]) == 3, [model_of(ledger, j) for j in order]
    assert ledger.attempts(lone[0])[-1].placed_because == f"{sim.url}: waited past the bound"


@pytest.mark.asyncio
async def test_base_and_refiner_go_to_the_server_with_both_with_retry_smaller_and_again(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    both = await make_simulator(models={"checkpoints": [BASE, REFINER]})
    neither = await make_simulator(models={"checkpoints": [SD15]})
    sd_preset(ledger, base_and_refiner(), "sdxl")
    spec = BatchSpec(
        seeds=SeedPlan(count=1), grid=(GridAxis("6.text", tuple(f"take {n}" for n in range(8))),)
    )
    ids = queue_batch(ledger, "sdxl", spec)[1]
    both.set_faults(fail_oom=1)
    controller = await make_controller(ledger, [neither, both])
    await wait_for(lambda: all(ledger.job(j).state.is_terminal for j in ids), 30)
    oom = [j for j in ids if ledger.job(j).state is JobState.failed]
    assert len(oom) == 1
    assert ledger.job(oom[0]).reason == "oom"
    smaller = controller.retry_smaller(oom[0])
    _, _, again = controller.queue_again(ids[0])
    await wait_for(lambda: succeeded(ledger, [smaller, again]), 30)
    every = [j for j in ids if j not in oom] + [smaller, again]
    assert {last_server(ledger, j) for j in every} == {both.url}
    assert neither.state.model_loads == {}
    assert ledger.attempts(again)[-1].placed_because in {
        f"{both.url}: the only server with {BASE}, {REFINER}",
        f"{both.url}: its loaded model",
    }


@pytest.mark.asyncio
async def test_servers_now_says_which_servers_are_connected_from_the_published_status(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    sim = await make_simulator(models={"checkpoints": [A]})
    await make_controller(ledger, sim)
    await wait_for(lambda: sim.url in servers_now(ledger).connected, 10)


def test_a_job_held_for_one_server_while_its_pictures_go_there_is_passed_over_by_the_others(
    ledger: Ledger,
) -> None:
    import json
    from pathlib import Path

    from core.catalogue import BUNDLED_RESOURCE
    from core.controller.fleet import Fleet
    from core.controller.server_state import ServerState
    from core.placement.server_offer import offer_from_object_info
    from tests.core.controller.conftest import queue

    data = Path(__file__).parents[3] / "core" / "data" / BUNDLED_RESOURCE
    offer = offer_from_object_info(json.loads(data.read_text()))
    fleet = Fleet(ledger)
    one, two = ServerState.of(ledger, "http://gpu-1"), ServerState.of(ledger, "http://gpu-2")
    for server in (one, two):
        server.offer, server.offer_epoch, server.answering = offer, server.epoch, True
        fleet.add(server)
    ids = queue(ledger, 3)

    def line(server: ServerState) -> list[str]:
        return [job.job_id for job in fleet.lines_for(server, 8)["alice"]]

    assert fleet.prepare(ids[0], one)
    assert fleet.prepare(ids[0], one), "held by the same server: still its own"
    assert not fleet.prepare(ids[0], two)
    assert line(one) == ids
    assert line(two) == ids[1:]
    fleet.done([ids[0]], two)  # not two's to let go
    assert line(two) == ids[1:]
    fleet.done([ids[0]], one)
    assert line(two) == ids
