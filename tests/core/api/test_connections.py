"""The API's limits on what clients hold: connections and event streams past their caps (503),
headers and bodies that do not arrive in time, what clients can make it log (once a while),
the change feed filtered by requester in the query, and the descriptor limit raised."""

from __future__ import annotations

import asyncio
import errno
import json
import logging
import resource
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
import pytest_asyncio

from core.api import ApiConfig, bodies, quiet_log, serve_api
from core.api import app as app_module
from core.api.connections import ConnectionCaps, raise_descriptor_limit
from core.api.quiet_log import HTTP_LOG, EveryWhile, quiet_accept_errors, quiet_logger
from core.ledger import Ledger, NewJob
from tests.core.api.conftest import Api

pytestmark = pytest.mark.asyncio


@pytest.fixture
def fresh_quiet_log() -> Iterator[logging.Logger]:
    """The API's quiet logger with a filter of its own (none held back by an earlier test)."""
    logger = logging.getLogger(HTTP_LOG)
    kept = list(logger.filters)
    for old in kept:
        logger.removeFilter(old)
    yield quiet_logger()
    for new in list(logger.filters):
        logger.removeFilter(new)
    for old in kept:
        logger.addFilter(old)


@pytest_asyncio.fixture
async def small(api: Api) -> AsyncIterator[tuple[str, int]]:
    """The API again, with 3 connections and 3 streams (2 a token) at most: its host and port."""
    caps = ConnectionCaps(connections=3, streams=3, streams_per_token=2)
    async with serve_api(api.ledger, ApiConfig("127.0.0.1", 0, caps=caps)) as url:
        host, port = url.removeprefix("http://").rsplit(":", 1)
        yield host, int(port)


async def _answer(reader: asyncio.StreamReader) -> tuple[int, dict[str, object]]:
    """A whole answer's status and JSON body (the server closes the connection after it)."""
    data = await reader.read()
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


@pytest.mark.expect_log(HTTP_LOG, "WARNING")
async def test_a_connection_past_the_cap_gets_503_and_one_freed_serves_again(
    small: tuple[str, int], fresh_quiet_log: logging.Logger, caplog: pytest.LogCaptureFixture
) -> None:
    held = [await asyncio.open_connection(*small) for _ in range(3)]
    refused = []
    for _ in range(5):
        reader, writer = await asyncio.open_connection(*small)
        refused.append(await _answer(reader))
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


async def test_a_body_not_all_arrived_in_time_is_408_and_one_in_pieces_is_read_whole(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bodies, "BODY_TIMEOUT_S", 0.3)
    host, port = api.url.removeprefix("http://").rsplit(":", 1)
    body = json.dumps({"preset": "noise", "count": 1}).encode()
    head = (
        f"POST /v1/batches HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {api.tokens['alice']}"
        f"\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    ).encode()
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(head + body[:5])
    status, answer = await _answer(reader)
    writer.close()
    assert (status, answer["error"]) == (408, "timeout")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(head + body[:5])
    await writer.drain()
    await asyncio.sleep(0.1)
    writer.write(body[5:])
    status, answer = await _answer(reader)
    writer.close()
    assert status == 201, answer


@pytest.mark.expect_log(HTTP_LOG, "ERROR")
async def test_request_lines_too_long_are_refused_and_logged_once(
    api: Api, fresh_quiet_log: logging.Logger, caplog: pytest.LogCaptureFixture
) -> None:
    async with api.client() as http:
        answers = [(await http.get("/v1/jobs", params={"x": "a" * 10_000})) for _ in range(30)]
    assert {answer.status_code for answer in answers} == {400}
    (line,) = [r for r in caplog.records if r.name == HTTP_LOG]
    assert line.exc_info is None
    assert "LineTooLong" in line.getMessage()


async def test_every_while_lets_one_through_then_says_how_many_it_held(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(quiet_log, "EVERY_S", 0.2)
    logger = logging.getLogger("tests.quiet")
    logger.addFilter(EveryWhile())
    with caplog.at_level(logging.INFO, logger="tests.quiet"):
        for n in range(50):
            logger.info("connection %d refused", n)
        await asyncio.sleep(0.25)
        logger.info("connection %d refused", 50)
    assert [r.getMessage().split(" (")[0] for r in caplog.records] == [
        "connection 0 refused",
        "connection 50 refused",
    ]
    assert "(and 49 more like it in the last 0 s)" in caplog.records[1].getMessage()


@pytest.mark.expect_log(HTTP_LOG, "WARNING")
async def test_accept_failing_for_want_of_descriptors_is_one_line(
    fresh_quiet_log: logging.Logger, caplog: pytest.LogCaptureFixture
) -> None:
    loop = asyncio.get_running_loop()
    with quiet_accept_errors(loop):
        for _ in range(100):
            loop.call_exception_handler(
                {
                    "message": "socket.accept() out of system resource",
                    "exception": OSError(errno.EMFILE, "Too many open files"),
                }
            )
    (line,) = [r for r in caplog.records if r.name in (HTTP_LOG, "asyncio")]
    assert line.getMessage() == "the API cannot accept connections (Too many open files)"


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


async def test_a_position_past_the_feed_starts_at_the_latest_and_a_bad_one_is_400(
    api: Api,
) -> None:
    api.ledger.create_batch("noise", [NewJob({})], requester="alice")
    latest = api.ledger.latest_seq()
    async with api.client() as http:
        async with http.stream("GET", "/v1/events", params={"since": str(10**23)}) as stream:
            lines = stream.aiter_lines()
            assert [await anext(lines), await anext(lines)] == [
                "retry: 1000",
                f": following from change {latest}",
            ]
        refused = [
            await http.get("/v1/events", params={"since": text})
            for text in ("²", "1" * 5000, "-1", "1e3")
        ]
    assert {answer.status_code for answer in refused} == {400}


async def test_the_feed_of_one_requester_is_filtered_in_the_query(ledger: Ledger) -> None:
    for n in range(5):
        ledger.create_batch("noise", [NewJob({})] * 3, requester="alice")
        ledger.create_batch("noise", [NewJob({})], requester="bob" if n % 2 else "carol")
    latest = ledger.latest_seq()
    bobs, reached = ledger.changes_since(0, requester="bob")
    assert [job.requester for job in bobs] == ["bob", "bob"]
    assert reached == latest
    first, middle = ledger.changes_since(0, limit=1, requester="bob")
    rest, end = ledger.changes_since(middle, limit=1, requester="bob")
    assert [first[0].id, rest[0].id] == [job.id for job in bobs]
    assert ledger.changes_since(end, requester="bob") == ([], latest)
    assert ledger.changes_since(0, requester="nobody") == ([], latest)
    assert ledger.changes_since(10**23, requester="bob") == ([], 10**23)


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
