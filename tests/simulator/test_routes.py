"""The simulator's smaller routes, as ComfyUI answers them: history windows and deletes,
per-class object info, features, embeddings, /free; a client hanging up mid-request."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from simulator import Simulator

pytestmark = pytest.mark.asyncio

PROMPT = {
    "1": {
        "class_type": "EmptyImage",
        "inputs": {"width": 8, "height": 8, "batch_size": 1, "color": 0},
    },
    "2": {"class_type": "SaveImage", "inputs": {"images": ["1", 0], "filename_prefix": "h"}},
}


async def _run_three(http: httpx.AsyncClient) -> list[str]:
    ids = []
    for color in (1, 2, 3):
        image = {**PROMPT["1"], "inputs": {**PROMPT["1"]["inputs"], "color": color}}
        answer = await http.post("/prompt", json={"prompt": {**PROMPT, "1": image}})
        ids.append(answer.json()["prompt_id"])
    for _ in range(500):
        if len((await http.get("/history")).json()) == 3:
            return ids
        await asyncio.sleep(0.01)
    raise AssertionError("the three prompts did not finish")


async def test_history_windows_and_deletes(simulator: Simulator) -> None:
    async with httpx.AsyncClient(base_url=simulator.url) as http:
        ids = await _run_three(http)
        assert list((await http.get("/history", params={"max_items": 2})).json()) == ids[1:]
        window = await http.get("/history", params={"max_items": 1, "offset": 1})
        assert list(window.json()) == ids[1:2]
        assert (await http.get("/history", params={"offset": 5})).json() == {}
        assert (await http.get("/history", params={"max_items": 0})).json() == {}
        assert (await http.post("/history", json={"delete": [ids[0]]})).status_code == 200
        assert list((await http.get("/history")).json()) == ids[1:]
        assert (await http.post("/api/history", json={"clear": True})).status_code == 200
        assert (await http.get("/history")).json() == {}
        assert (await http.post("/history", content=b"not json")).status_code == 500


async def test_catalogue_and_small_routes(simulator: Simulator) -> None:
    async with httpx.AsyncClient(base_url=simulator.url) as http:
        one = (await http.get("/object_info/EmptyImage")).json()
        assert list(one) == ["EmptyImage"]
        assert one["EmptyImage"]["input"]["required"]["width"][0] == "INT"
        assert (await http.get("/object_info/NoSuchNode")).json() == {}
        features = (await http.get("/features")).json()
        assert features["supports_preview_metadata"] is True
        assert (await http.get("/embeddings")).json() == []
        assert (await http.post("/free", json={"free_memory": True})).status_code == 200
        assert (await http.post("/free", content=b"{")).status_code == 500


async def test_a_client_hanging_up_mid_body_is_no_server_error(
    simulator: Simulator, caplog: pytest.LogCaptureFixture
) -> None:
    url = httpx.URL(simulator.url)
    _reader, writer = await asyncio.open_connection(url.host, url.port)
    writer.write(
        b"POST /interrupt HTTP/1.1\r\nHost: sim\r\nContent-Type: application/json\r\n"
        b"Content-Length: 100\r\n\r\n{"
    )
    await writer.drain()
    await asyncio.sleep(0.1)  # the handler waits for the rest of the body
    writer.close()
    await writer.wait_closed()
    await asyncio.sleep(0.2)  # the handler finds the connection lost
    async with httpx.AsyncClient(base_url=simulator.url) as http:
        assert (await http.get("/queue")).status_code == 200
    assert [r.getMessage() for r in caplog.records if r.name.startswith("aiohttp")] == []
