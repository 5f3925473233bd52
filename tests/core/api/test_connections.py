"""How many connections and streams the API holds and how long it waits on each: connections
and event streams past their caps (503), headers that do not arrive in time, and the caps sized
from the descriptor limit it raises."""

from __future__ import annotations

import asyncio
import logging
import resource
from collections.abc import AsyncIterator

import httpx
import pytest
import pytest_asyncio

from core.api import ApiConfig, serve_api
from core.api import app as app_module
from core.api.connections import ConnectionCaps, raise_descriptor_limit
from core.api.quiet_log import HTTP_LOG
from tests.core.api.conftest import Api, read_answer

pytestmark = pytest.mark.asyncio


@pytest_asyncio.fixture
async def small(api: Api) -> AsyncIterator[tuple[str, int]]:
    """The API again, with 3 connections and 3 streams (2 a token) at most: its host and port."""
    caps = ConnectionCaps(connections=3, streams=3, streams_per_token=2)
    async with serve_api(api.ledger, ApiConfig("127.0.0.1", 0, caps=caps)) as url:
        host, port = url.removeprefix("http://").rsplit(":", 1)
        yield host, int(port)


@pytest.mark.expect_log(HTTP_LOG, "WARNING")
async def test_a_connection_past_the_cap_gets_503_and_one_freed_serves_again(
    small: tuple[str, int], fresh_quiet_log: logging.Logger, caplog: pytest.LogCaptureFixture
) -> None:
    held = [await asyncio.open_connection(*small) for _ in range(3)]
    refused = []
    for _ in range(5):
        reader, writer = await asyncio.open_connection(*small)
        refused.append(await read_answer(reader))
        writer.close()
    assert refused == [(503, {"error": "unavailable", "message": refused[0][1]["message"]})] * 5
    held[0][1].close()
    await held[0][1].wait_closed()
    async with httpx.AsyncClient(base_url=f"http://{small[0]}:{small[1]}") as http:
        for _ in range(50):  # until the server has seen the close
            if (await http.get("/v1/openapi.json")).status_code == 200:
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("no connection was freed")
    lines = [r for r in caplog.records if r.name == HTTP_LOG]
    assert [r.getMessage() for r in lines][:1] == [
        "the API refused a connection: 3 are open, its cap"
    ]
    assert len(lines) == 1  # five refusals (or more), one line
    for _, writer in held[1:]:
        writer.close()


async def test_headers_not_all_arrived_in_time_close_the_connection(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(app_module, "HEADER_TIMEOUT_S", 0.3)
    async with serve_api(api.ledger, ApiConfig("127.0.0.1", 0)) as url:
        host, port = url.removeprefix("http://").rsplit(":", 1)
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(b"GET /v1/status HTTP/1.1\r\nHost: x\r\nX-Slow: a")
        async with asyncio.timeout(20):
            assert await reader.read() == b""  # closed, unanswered
        writer.close()


async def test_streams_past_their_caps_get_503(api: Api) -> None:
    caps = ConnectionCaps(connections=16, streams=3, streams_per_token=2)
    async with serve_api(api.ledger, ApiConfig("127.0.0.1", 0, caps=caps)) as url:

        def client(name: str) -> httpx.AsyncClient:
            headers = {"Authorization": f"Bearer {api.tokens[name]}"}
            return httpx.AsyncClient(base_url=url, headers=headers, timeout=10)

        async with client("alice") as alice, client("bob") as bob:
            streams = [
                await alice.send(alice.build_request("GET", "/v1/events"), stream=True)
                for _ in range(2)
            ]
            third = await alice.get("/v1/events")
            streams.append(await bob.send(bob.build_request("GET", "/v1/events"), stream=True))
            past_all = await bob.get("/v1/events")
            await streams[0].aclose()
            again = await alice.send(alice.build_request("GET", "/v1/events"), stream=True)
            async with asyncio.timeout(20):
                while again.status_code == 503:  # until the server has seen the close
                    await asyncio.sleep(0.05)
                    again = await alice.send(alice.build_request("GET", "/v1/events"), stream=True)
            for stream in [*streams, again]:
                await stream.aclose()
    assert [stream.status_code for stream in [*streams, again]] == [200] * 4
    assert (third.status_code, third.json()["error"]) == (503, "unavailable")
    assert third.json()["message"] == "this token has 2 event streams open, its cap"
    assert third.headers["Retry-After"] == "1"
    assert past_all.status_code == 503
    assert past_all.json()["message"] == "the API has 3 event streams open, its cap"


async def test_the_descriptor_limit_is_raised_and_the_caps_sized_from_it() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(256, hard), hard))
        raised = raise_descriptor_limit(4096)
        assert raised == resource.getrlimit(resource.RLIMIT_NOFILE)[0] == min(4096, hard)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert ConnectionCaps.for_descriptors(1024) == ConnectionCaps(256, 128, 16)
    assert ConnectionCaps.for_descriptors(100_000) == ConnectionCaps(1024, 512, 64)
    assert ConnectionCaps.for_descriptors(16) == ConnectionCaps(8, 4, 2)
