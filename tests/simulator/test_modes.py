"""Modes: the newer version's jobs API and prompt_id rule, and token authentication."""

from __future__ import annotations

import base64
import uuid
from typing import Any

import aiohttp
import pytest

from simulator import Simulator
from tests.simulator.sim_helpers import (
    get,
    post,
    quick,
    submit,
)

NEWER = "0.38.1"


@pytest.mark.asyncio
async def test_baseline_has_no_jobs_api(simulator: Simulator) -> None:
    async with aiohttp.ClientSession() as session:
        assert (await get(session, simulator.url + "/api/jobs"))[0] == 404
        _, stats = await get(session, simulator.url + "/system_stats")
    assert stats["system"]["comfyui_version"] == "0.3.64"


@pytest.mark.asyncio
async def test_newer_version_requires_uuid_prompt_ids(make_simulator: Any) -> None:
    sim: Simulator = await make_simulator(version=NEWER)
    async with aiohttp.ClientSession() as session:
        status, body = await post(
            session, sim.url + "/prompt", {"prompt": quick(1), "prompt_id": "x"}
        )
        assert status == 400
        assert body["error"]["type"] == "invalid_prompt_id"
        good = str(uuid.uuid4())
        assert await submit(session, sim, quick(1), prompt_id=good) == good
        unknown = {"prompt": {"1": {"class_type": "Nope", "inputs": {}}}}
        status, body = await post(session, sim.url + "/prompt", unknown)
        _, stats = await get(session, sim.url + "/system_stats")
    assert body["error"]["type"] == "missing_node_type"
    assert stats["system"]["comfyui_version"] == NEWER


@pytest.mark.asyncio
async def test_token_is_required_on_http_and_websocket(make_simulator: Any) -> None:
    sim: Simulator = await make_simulator(token="s3cret")
    basic = base64.b64encode(b"anyone:s3cret").decode()
    async with aiohttp.ClientSession() as session:
        assert (await get(session, sim.url + "/queue"))[0] == 401
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await session.ws_connect(sim.url + "/ws")
        assert refused.value.status == 401
    for header in ("Bearer s3cret", f"Basic {basic}"):
        async with aiohttp.ClientSession(headers={"Authorization": header}) as session:
            assert (await get(session, sim.url + "/queue"))[0] == 200
            async with session.ws_connect(sim.url + "/ws") as ws:
                assert (await ws.receive_json())["type"] == "status"
    async with aiohttp.ClientSession(headers={"Authorization": "Bearer wrong"}) as session:
        assert (await get(session, sim.url + "/queue"))[0] == 401
