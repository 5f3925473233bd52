"""Contract: each recorded ComfyUI 0.3.64 exchange, replayed on the simulator, has its shape."""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from simulator import Simulator
from tests.simulator.sim_helpers import SocketLog, get, post, submit, wait_history, wait_running
from tests.simulator.sim_shapes import exchange_diff, per_prompt_sequences

RECORDINGS = Path(__file__).resolve().parents[1] / "data" / "recordings"
MakeSimulator = Callable[..., Awaitable[Simulator]]
Answer = tuple[int, Any]


def recording(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((RECORDINGS / f"{name}.json").read_text())
    return data


def body_of(name: str, **changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = copy.deepcopy(recording(name)["request"]["body"])
    body.update(changes)
    return body


def blur_body(color: int) -> dict[str, Any]:
    body = body_of("prompt_200")
    body["prompt"]["1"]["inputs"]["color"] = color
    return body


async def replay(session: aiohttp.ClientSession, sim: Simulator, name: str) -> Answer:
    """Send the recorded request as it is."""
    request = recording(name)["request"]
    if request["method"] == "GET":
        return await get(session, sim.url + request["path"])
    return await post(session, sim.url + request["path"], request["body"])


async def busy_queue(session: aiohttp.ClientSession, sim: Simulator) -> list[str]:
    """One hung running blur job and three pending ones, as in the recording."""
    sim.hang_next()
    ids = []
    for index in range(4):
        _, answer = await post(session, sim.url + "/prompt", blur_body(index))
        ids.append(answer["prompt_id"])
    await wait_running(sim, ids[0])
    return ids


async def finished(session: aiohttp.ClientSession, sim: Simulator, body: dict[str, Any]) -> Answer:
    _, answer = await post(session, sim.url + "/prompt", body)
    prompt_id = answer["prompt_id"]
    await wait_history(session, sim, prompt_id)
    return await get(session, f"{sim.url}/history/{prompt_id}")


# --- scenarios: each sets up the state of its recording and sends its request -------------


async def s_duplicate(session: aiohttp.ClientSession, sim: Simulator) -> Answer:
    await post(session, sim.url + "/prompt", body_of("prompt_200_client_prompt_id"))
    return await replay(session, sim, "prompt_duplicate_prompt_id")


async def s_history_success(session: aiohttp.ClientSession, sim: Simulator) -> Answer:
    return await finished(session, sim, body_of("prompt_200_client_prompt_id"))


async def s_history_after_duplicate(session: aiohttp.ClientSession, sim: Simulator) -> Answer:
    await finished(session, sim, body_of("prompt_200_client_prompt_id"))
    return await finished(session, sim, body_of("prompt_duplicate_prompt_id"))


async def s_history_blur(session: aiohttp.ClientSession, sim: Simulator) -> Answer:
    return await finished(session, sim, blur_body(7))


async def s_history_oom(session: aiohttp.ClientSession, sim: Simulator) -> Answer:
    return await finished(session, sim, body_of("prompt_200_oom_job"))


async def s_history_interrupted(session: aiohttp.ClientSession, sim: Simulator) -> Answer:
    sim.config.job_seconds = 0.6
    _, answer = await post(session, sim.url + "/prompt", blur_body(1))
    prompt_id = answer["prompt_id"]
    await wait_running(sim, prompt_id)
    await post(session, sim.url + "/interrupt", {"prompt_id": prompt_id})
    await wait_history(session, sim, prompt_id)
    return await get(session, f"{sim.url}/history/{prompt_id}")


async def s_history_list(session: aiohttp.ClientSession, sim: Simulator) -> Answer:
    await finished(session, sim, body_of("prompt_200_oom_job"))
    await s_history_interrupted(session, sim)
    return await replay(session, sim, "history_list_max_items_2")


async def s_deleted_never_ran(session: aiohttp.ClientSession, sim: Simulator) -> Answer:
    ids = await busy_queue(session, sim)
    await post(session, sim.url + "/queue", {"delete": [ids[2]]})
    return await get(session, f"{sim.url}/history/{ids[2]}")


async def s_queue_running(session: aiohttp.ClientSession, sim: Simulator) -> Answer:
    await busy_queue(session, sim)
    return await get(session, sim.url + "/queue")


async def s_prompt_busy(session: aiohttp.ClientSession, sim: Simulator) -> Answer:
    await busy_queue(session, sim)
    return await get(session, sim.url + "/prompt")


async def s_queue_delete(session: aiohttp.ClientSession, sim: Simulator) -> Answer:
    ids = await busy_queue(session, sim)
    return await post(session, sim.url + "/queue", {"delete": [ids[2]]})


async def s_queue_after_delete(session: aiohttp.ClientSession, sim: Simulator) -> Answer:
    await s_queue_delete(session, sim)
    return await get(session, sim.url + "/queue")


async def s_queue_delete_running(session: aiohttp.ClientSession, sim: Simulator) -> Answer:
    ids = await busy_queue(session, sim)
    return await post(session, sim.url + "/queue", {"delete": [ids[0]]})


async def s_queue_clear(session: aiohttp.ClientSession, sim: Simulator) -> Answer:
    await busy_queue(session, sim)
    return await post(session, sim.url + "/queue", {"clear": True})


async def s_queue_after_clear(session: aiohttp.ClientSession, sim: Simulator) -> Answer:
    await s_queue_clear(session, sim)
    return await get(session, sim.url + "/queue")


async def s_interrupt_targeted(session: aiohttp.ClientSession, sim: Simulator) -> Answer:
    ids = await busy_queue(session, sim)
    return await post(session, sim.url + "/interrupt", {"prompt_id": ids[0]})


async def s_interrupt_not_running(session: aiohttp.ClientSession, sim: Simulator) -> Answer:
    ids = await busy_queue(session, sim)
    return await post(session, sim.url + "/interrupt", {"prompt_id": ids[3]})


Scenario = Callable[[aiohttp.ClientSession, Simulator], Awaitable[Answer]]

SCENARIOS: dict[str, Scenario] = {
    "prompt_duplicate_prompt_id": s_duplicate,
    "history_success": s_history_success,
    "history_after_duplicate": s_history_after_duplicate,
    "history_success_blur": s_history_blur,
    "history_execution_error_oom": s_history_oom,
    "history_interrupted": s_history_interrupted,
    "history_list_max_items_2": s_history_list,
    "history_deleted_never_ran": s_deleted_never_ran,
    "queue_running_and_pending": s_queue_running,
    "prompt_get_busy": s_prompt_busy,
    "queue_delete_pending": s_queue_delete,
    "queue_after_delete": s_queue_after_delete,
    "queue_delete_running_noop": s_queue_delete_running,
    "queue_clear": s_queue_clear,
    "queue_after_clear": s_queue_after_clear,
    "interrupt_targeted": s_interrupt_targeted,
    "interrupt_targeted_not_running": s_interrupt_not_running,
}
SPECIAL = {"object_info_subset", "websocket_transcript"}
REPLAYED = sorted(
    p.stem for p in RECORDINGS.glob("*.json") if p.stem not in SCENARIOS and p.stem not in SPECIAL
)


def test_every_recording_is_covered() -> None:
    names = {p.stem for p in RECORDINGS.glob("*.json")}
    assert names == set(SCENARIOS) | SPECIAL | set(REPLAYED)
    assert len(names) == 31


@pytest.mark.asyncio
@pytest.mark.parametrize("name", REPLAYED)
async def test_replayed_request_has_the_recorded_shape(name: str, simulator: Simulator) -> None:
    async with aiohttp.ClientSession() as session:
        status, response = await replay(session, simulator, name)
    assert exchange_diff(recording(name), status, response) == []


@pytest.mark.asyncio
@pytest.mark.parametrize("name", sorted(SCENARIOS))
async def test_scenario_answer_has_the_recorded_shape(name: str, simulator: Simulator) -> None:
    async with aiohttp.ClientSession() as session:
        status, response = await SCENARIOS[name](session, simulator)
    assert exchange_diff(recording(name), status, response) == []


@pytest.mark.asyncio
async def test_object_info_serves_every_recorded_class(simulator: Simulator) -> None:
    recorded = recording("object_info_subset")["response"]
    async with aiohttp.ClientSession() as session:
        status, served = await get(session, simulator.url + "/object_info")
    assert status == 200
    assert set(recorded) <= set(served)
    for name, entry in recorded.items():
        assert sorted(served[name]) == sorted(entry), name


@pytest.mark.asyncio
async def test_websocket_sequences_match_the_transcript(make_simulator: Any) -> None:
    """The recorder's seven prompts, driven by WebSocket events instead of sleeps."""
    # ImageBlur takes ~0.45 s and cannot be interrupted inside, as on a real CPU server.
    sim: Simulator = await make_simulator(job_seconds=0.3, cpu_time_scale=0.1)
    client = "contract-client"
    async with aiohttp.ClientSession() as session:
        log = SocketLog(await session.ws_connect(f"{sim.url}/ws?clientId={client}"))
        await _drive_transcript(session, sim, client, log)
        await asyncio.sleep(0.05)  # let the last executing {node: null} arrive
        await log.close()
    recorded = [m["text"] for m in recording("websocket_transcript")["messages"] if "text" in m]
    assert per_prompt_sequences(log.messages) == per_prompt_sequences(recorded)


def _executing(prompt_id: str, node: str) -> Callable[[dict[str, Any]], bool]:
    def match(m: dict[str, Any]) -> bool:
        data = m.get("data") or {}
        return bool(m["type"] == "executing" and data.get("prompt_id") == prompt_id
                    and data.get("node") == node)  # fmt: skip

    return match


async def _drive_transcript(
    session: aiohttp.ClientSession, sim: Simulator, client: str, log: SocketLog
) -> None:
    quick = body_of("prompt_200_client_prompt_id", client_id=client)
    first = await submit(session, sim, quick["prompt"], client_id=client, prompt_id="a" * 8)
    await wait_history(session, sim, first)
    again = body_of("prompt_duplicate_prompt_id", client_id=client, prompt_id=first)
    await post(session, sim.url + "/prompt", again)
    await log.wait(_executing(first, "2"))
    await wait_history(session, sim, first)
    blurs = [await submit(session, sim, blur_body(i)["prompt"], client_id=client) for i in range(4)]
    await post(session, sim.url + "/queue", {"delete": [blurs[2]]})
    await log.wait(_executing(blurs[0], "2"))
    await post(session, sim.url + "/interrupt", {"prompt_id": blurs[0]})
    await wait_history(session, sim, blurs[3])
    oom = body_of("prompt_200_oom_job", client_id=client)
    await wait_history(session, sim, await submit(session, sim, oom["prompt"], client_id=client))
    sim.config.job_seconds = 3.0  # a long first node: the global interrupt must land inside it
    last = [
        await submit(session, sim, blur_body(9 + i)["prompt"], client_id=client) for i in range(3)
    ]
    await post(session, sim.url + "/queue", {"clear": True})
    await log.wait(_executing(last[0], "1"))
    await post(session, sim.url + "/interrupt", {})
    await wait_history(session, sim, last[0])
