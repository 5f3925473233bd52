"""Queue behaviour: heap order, one prompt at a time, duplicates, delete, counter, restart."""

from __future__ import annotations

import itertools

import aiohttp
import pytest

from simulator import Simulator
from tests.simulator.sim_helpers import get, post, quick, submit, wait_history, wait_running


@pytest.mark.asyncio
async def test_pending_items_run_in_number_then_front_order(simulator: Simulator) -> None:
    simulator.hang_next()
    async with aiohttp.ClientSession() as session:
        blocker = await submit(session, simulator, quick(1))
        await wait_running(simulator, blocker)
        normal = await submit(session, simulator, quick(2))
        front = await submit(session, simulator, quick(3), front=True)
        explicit = await submit(session, simulator, quick(4), number=-100)
        order = sorted(simulator.state.queue.pending())
        assert [item.prompt_id for item in order] == [explicit, front, normal]
        _, queue = await get(session, simulator.url + "/queue")
    numbers = sorted(item[0] for item in queue["queue_pending"])
    assert numbers == [-100.0, -2, 1]


@pytest.mark.asyncio
async def test_one_prompt_runs_at_a_time_in_submission_order(simulator: Simulator) -> None:
    async with aiohttp.ClientSession() as session:
        ids = [await submit(session, simulator, quick(i)) for i in range(5)]
        entries = [await wait_history(session, simulator, pid) for pid in ids]
        _, history = await get(session, simulator.url + "/history")
    spans = []
    for entry in entries:
        events = dict((event, data["timestamp"]) for event, data in entry["status"]["messages"])
        spans.append((events["execution_start"], events["execution_success"]))
    for (_, end), (start, _) in itertools.pairwise(spans):
        assert start >= end
    assert list(history) == ids


@pytest.mark.asyncio
async def test_duplicate_prompt_ids_both_run_and_history_keeps_the_first_position(
    simulator: Simulator,
) -> None:
    async with aiohttp.ClientSession() as session:
        await wait_history(
            session, simulator, await submit(session, simulator, quick(1), prompt_id="dup")
        )
        other = await submit(session, simulator, quick(2))
        await wait_history(session, simulator, other)
        await submit(session, simulator, quick(3), prompt_id="dup")
        last = await submit(session, simulator, quick(4))
        await wait_history(session, simulator, last)
        _, history = await get(session, simulator.url + "/history")
    assert list(history) == ["dup", other, last]
    assert history["dup"]["prompt"][2]["1"]["inputs"]["color"] == 3
    assert simulator.execution_count("dup") == 2


@pytest.mark.asyncio
async def test_delete_removes_pending_but_ignores_the_running_prompt(simulator: Simulator) -> None:
    simulator.hang_next()
    async with aiohttp.ClientSession() as session:
        running = await submit(session, simulator, quick(1))
        await wait_running(simulator, running)
        pending = await submit(session, simulator, quick(2))
        status, body = await post(session, simulator.url + "/queue", {"delete": [running, pending]})
        assert (status, body) == (200, "")
        _, queue = await get(session, simulator.url + "/queue")
    assert [item[1] for item in queue["queue_running"]] == [running]
    assert queue["queue_pending"] == []


@pytest.mark.asyncio
async def test_clear_drops_pending_items_only(simulator: Simulator) -> None:
    simulator.hang_next()
    async with aiohttp.ClientSession() as session:
        running = await submit(session, simulator, quick(1))
        await wait_running(simulator, running)
        for color in (2, 3):
            await submit(session, simulator, quick(color))
        await post(session, simulator.url + "/queue", {"clear": True})
        _, prompt = await get(session, simulator.url + "/prompt")
    assert prompt == {"exec_info": {"queue_remaining": 1}}


@pytest.mark.asyncio
async def test_counter_advances_for_rejected_prompts(simulator: Simulator) -> None:
    async with aiohttp.ClientSession() as session:
        status, _ = await post(session, simulator.url + "/prompt", {"prompt": {}})
        assert status == 400
        status, _ = await post(session, simulator.url + "/prompt", {"nothing": 1})
        assert status == 400
        _, answer = await post(session, simulator.url + "/prompt", {"prompt": quick(1)})
    assert answer["number"] == 2


@pytest.mark.asyncio
async def test_restart_forgets_queue_history_and_counter(simulator: Simulator) -> None:
    async with aiohttp.ClientSession() as session:
        done = await submit(session, simulator, quick(1))
        await wait_history(session, simulator, done)
        simulator.hang_next()
        hung = await submit(session, simulator, quick(2))
        await wait_running(simulator, hung)
        await submit(session, simulator, quick(3))
        status, stats = await post(session, simulator.url + "/_sim/restart", {})
        assert status == 200
        assert stats["restarts"] == 1
        assert await get(session, f"{simulator.url}/history/{done}") == (200, {})
        assert await get(session, simulator.url + "/queue") == (
            200, {"queue_running": [], "queue_pending": []},
        )  # fmt: skip
        _, answer = await post(session, simulator.url + "/prompt", {"prompt": quick(4)})
        assert answer["number"] == 0
        await wait_history(session, simulator, answer["prompt_id"])
    assert simulator.execution_count(done) == 1
    assert simulator.execution_count(hung) == 1


@pytest.mark.asyncio
async def test_success_counts_survive_a_restart_and_skip_failures(simulator: Simulator) -> None:
    async with aiohttp.ClientSession() as session:
        done = await submit(session, simulator, quick(1))
        await wait_history(session, simulator, done)
        simulator.fail_next()
        failed = await submit(session, simulator, quick(2))
        await wait_history(session, simulator, failed)
        await post(session, simulator.url + "/_sim/restart", {})
        again = await submit(session, simulator, quick(1))
        await wait_history(session, simulator, again)
        _, stats = await get(session, simulator.url + "/_sim/stats")
    assert stats["success_counts"] == {done: 1, again: 1}
    assert stats["execution_counts"] == {done: 1, failed: 1, again: 1}


@pytest.mark.asyncio
async def test_a_restart_counts_the_successes_it_wipes(simulator: Simulator) -> None:
    async with aiohttp.ClientSession() as session:
        await post(session, simulator.url + "/prompt", {"prompt": quick(1), "prompt_id": "done"})
        await wait_history(session, simulator, "done")
    await simulator.restart()
    await simulator.restart()  # nothing left to wipe
    assert simulator.stats()["successes_wiped"] == {"done": 1}
