"""HTTP and WebSocket faults: 500s, dropped connections, lost answers, delays, admin routes."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import aiohttp
import pytest

from simulator import Simulator
from tests.simulator.sim_helpers import get, post, quick, wait_for


async def statuses(sim: Simulator, count: int, path: str = "/prompt") -> list[int | str]:
    results: list[int | str] = []
    async with aiohttp.ClientSession() as session:
        for _ in range(count):
            try:
                async with session.get(sim.url + path) as response:
                    await response.read()
                    results.append(response.status)
            except aiohttp.ClientError:
                results.append("dropped")
    return results


@pytest.mark.asyncio
async def test_error_rate_is_seeded_and_reproducible(make_simulator: Any) -> None:
    runs = []
    for _ in range(2):
        sim: Simulator = await make_simulator(seed=7, faults={"error_rate": 0.5})
        runs.append(await statuses(sim, 20))
    assert runs[0] == runs[1]
    assert set(runs[0]) == {200, 500}


@pytest.mark.asyncio
async def test_server_error_body_is_aiohttp_text(make_simulator: Any) -> None:
    sim: Simulator = await make_simulator(faults={"error_rate": 1.0})
    async with aiohttp.ClientSession() as session:
        status, body = await get(session, sim.url + "/queue")
    assert (status, body) == (500, "500 Internal Server Error\n\nServer got itself in trouble")


@pytest.mark.asyncio
async def test_dropped_connections_give_no_answer(make_simulator: Any) -> None:
    sim: Simulator = await make_simulator(faults={"drop_rate": 1.0})
    assert await statuses(sim, 3) == ["dropped"] * 3
    assert sim.stats()["http_faults_injected"]["drop"] >= 3  # aiohttp retries idempotent GETs


@pytest.mark.asyncio
async def test_faults_can_be_limited_to_one_route(make_simulator: Any) -> None:
    sim: Simulator = await make_simulator(faults={"error_rate": 1.0, "routes": ["POST /prompt"]})
    async with aiohttp.ClientSession() as session:
        assert (await get(session, sim.url + "/queue"))[0] == 200
        assert (await post(session, sim.url + "/api/prompt", {"prompt": quick(1)}))[0] == 500
    assert sim.state.queue.counter == 0  # answered 500 before the handler ran


@pytest.mark.asyncio
async def test_drop_after_queue_loses_the_answer_but_queues_the_prompt(make_simulator: Any) -> None:
    sim: Simulator = await make_simulator(faults={"drop_after_queue_rate": 1.0})
    async with aiohttp.ClientSession() as session:
        with pytest.raises(aiohttp.ClientError):
            await post(session, sim.url + "/prompt", {"prompt": quick(1), "prompt_id": "lost"})
        await wait_for(lambda: sim.execution_count("lost") == 1)
        assert (await get(session, sim.url + "/queue"))[0] == 200  # GETs are unaffected


@pytest.mark.asyncio
async def test_late_queue_queues_the_prompt_after_the_client_gave_up(make_simulator: Any) -> None:
    sim: Simulator = await make_simulator(faults={"late_queue_rate": 1.0, "late_seconds": 0.6})
    timeout = aiohttp.ClientTimeout(total=0.2)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        with pytest.raises(TimeoutError):
            await post(session, sim.url + "/prompt", {"prompt": quick(1), "prompt_id": "late"})
        assert sim.state.queue.counter == 1  # read and numbered, not yet queued
        assert sim.execution_count("late") == 0
        await asyncio.sleep(0.3)
        assert sim.execution_count("late") == 0  # still validating
    await wait_for(lambda: sim.execution_count("late") == 1)
    assert sim.stats()["http_faults_injected"]["late_queue"] == 1


@pytest.mark.asyncio
async def test_late_answer_queues_at_once_and_answers_later(make_simulator: Any) -> None:
    sim: Simulator = await make_simulator(faults={"late_answer_rate": 1.0, "late_seconds": 0.5})
    async with aiohttp.ClientSession() as session:
        answer = asyncio.ensure_future(
            post(session, sim.url + "/prompt", {"prompt": quick(1), "prompt_id": "slow"})
        )
        await wait_for(lambda: sim.execution_count("slow") == 1)
        assert not answer.done()
        status, body = await answer
    assert (status, body["prompt_id"]) == (200, "slow")


@pytest.mark.asyncio
async def test_delay_slows_every_answer(make_simulator: Any) -> None:
    sim: Simulator = await make_simulator(faults={"delay_seconds": 0.2})
    started = time.monotonic()
    assert await statuses(sim, 1) == [200]
    assert time.monotonic() - started >= 0.2


@pytest.mark.asyncio
async def test_admin_route_sets_faults_at_run_time(simulator: Simulator) -> None:
    async with aiohttp.ClientSession() as session:
        status, faults = await post(session, simulator.url + "/_sim/faults", {"fail_oom": 2})
        assert status == 200
        assert faults["fail_oom"] == 2
        status, answer = await post(session, simulator.url + "/_sim/faults", {"bogus": 1})
        assert status == 400
        assert "bogus" in answer["error"]
        status, stats = await get(session, simulator.url + "/_sim/stats")
    assert status == 200
    assert stats["faults"]["fail_oom"] == 2
    assert stats["restarts"] == 0


@pytest.mark.asyncio
async def test_admin_routes_are_not_hit_by_http_faults(make_simulator: Any) -> None:
    sim: Simulator = await make_simulator(faults={"error_rate": 1.0})
    async with aiohttp.ClientSession() as session:
        status, _ = await post(session, sim.url + "/_sim/faults", {"error_rate": 0.0})
        assert status == 200
        assert (await get(session, sim.url + "/queue"))[0] == 200


@pytest.mark.asyncio
async def test_dropping_websockets_closes_every_socket(simulator: Simulator) -> None:
    async with aiohttp.ClientSession() as session:
        sockets = [await session.ws_connect(f"{simulator.url}/ws?clientId=c{i}") for i in range(2)]
        for ws in sockets:
            assert (await ws.receive_json())["type"] == "status"
        status, _ = await post(session, simulator.url + "/_sim/drop_websockets", {})
        assert status == 200
        for ws in sockets:
            message = await asyncio.wait_for(ws.receive(), 5)
            assert message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
            await ws.close()
    assert simulator.stats()["websockets"] == 0


@pytest.mark.asyncio
async def test_websocket_greets_with_status_and_answers_feature_flags(simulator: Simulator) -> None:
    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(f"{simulator.url}/ws?clientId=me") as ws:
            greeting = await ws.receive_json()
            await ws.send_json(
                {"type": "feature_flags", "data": {"supports_preview_metadata": True}}
            )
            flags = await ws.receive_json()
        async with session.ws_connect(f"{simulator.url}/api/ws") as ws:
            anonymous = await ws.receive_json()
    assert greeting == {"type": "status", "data": {
        "status": {"exec_info": {"queue_remaining": 0}}, "sid": "me"}}  # fmt: skip
    assert flags["type"] == "feature_flags"
    assert flags["data"]["supports_preview_metadata"] is True
    assert len(anonymous["data"]["sid"]) == 32


@pytest.mark.asyncio
async def test_hostile_answers_spoil_what_the_handler_did(make_simulator: Any) -> None:
    sim: Simulator = await make_simulator(faults={"garbage_rate": 1.0})
    async with aiohttp.ClientSession() as session:
        async with session.post(sim.url + "/prompt", json={"prompt": quick(1)}) as response:
            assert (response.status, await response.read()) == (200, b"\x00<html>not json")
        await wait_for(lambda: sim.state.queue.counter == 1)  # queued all the same
        sim.set_faults(garbage_rate=0.0, huge_rate=1.0)
        async with session.get(sim.url + "/queue") as response:
            body = await response.read()
        assert len(body) > 20 * 1024 * 1024
        assert json.loads(body)["queue_pending"] is not None  # blanks, then the real answer
        sim.set_faults(huge_rate=0.0, trickle_rate=1.0, trickle_seconds=0.05)
        started = time.monotonic()
        async with session.get(sim.url + "/prompt") as response:
            body = await response.read()
        assert time.monotonic() - started >= 0.05 * min(len(body), 60)
        assert "queue_remaining" in json.loads(body)["exec_info"]
    injected = sim.stats()["http_faults_injected"]
    assert (injected["garbage"], injected["huge"], injected["trickle"]) == (1, 1, 1)
