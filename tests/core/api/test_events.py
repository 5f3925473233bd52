"""``GET /v1/events``: the requester's job changes, numbered by the ledger's change feed, filtered
by requester in the query; a position past the feed starts at the latest, a bad one is 400."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from core.api import ApiConfig, serve_api
from core.api import app as app_module
from core.ledger import Ledger, NewJob
from tests.core.api.conftest import Api

pytestmark = pytest.mark.asyncio


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


async def _read(lines: AsyncIterator[str], count: int) -> list[dict[str, Any]]:
    """The next ``count`` events of a stream's lines (id and data)."""
    events: list[dict[str, Any]] = []
    event: dict[str, Any] = {}
    async for line in lines:
        if line.startswith("id: "):
            event["id"] = int(line[4:])
        elif line.startswith("data: "):
            event["data"] = json.loads(line[6:])
        elif not line and event:
            events.append(event)
            event = {}
            if len(events) == count:
                return events
    raise AssertionError("the stream ended")


async def test_changes_come_as_they_happen_and_resume_after_the_last_id(api: Api) -> None:
    ledger = api.ledger
    async with api.client() as http:
        async with http.stream("GET", "/v1/events") as stream:
            assert stream.headers["Content-Type"] == "text/event-stream"
            lines = stream.aiter_lines()
            _, (bobs,) = ledger.create_batch("noise", [NewJob({})], requester="bob")
            _, (job,) = ledger.create_batch("noise", [NewJob({})], requester="alice")
            (created,) = await _read(lines, 1)  # bob's job is not alice's to see
            ledger.request_cancel(job)
            (cancelled,) = await _read(lines, 1)
        assert (created["data"]["id"], created["data"]["state"]) == (job, "pending")
        assert cancelled["data"] == {**cancelled["data"], "id": job, "state": "cancelled"}
        assert created["id"] < cancelled["id"] == ledger.latest_seq()
        ledger.retry_many([job])
        async with http.stream(
            "GET", "/v1/events", headers={"Last-Event-ID": str(cancelled["id"])}
        ) as stream:
            (retried,) = await _read(stream.aiter_lines(), 1)
        assert (retried["data"]["state"], retried["data"]["attempt"]) == ("pending", 2)
        assert bobs not in {retried["data"]["id"]}
        bad = await http.get("/v1/events", headers={"Last-Event-ID": "soon"})
        negative = await http.get("/v1/events", params={"since": "-1"})
    assert (bad.status_code, negative.status_code) == (400, 400)
    assert bad.json()["message"] == "Last-Event-ID: 'soon' is not a change number"


async def test_stopping_the_api_ends_its_open_streams(
    api: Api, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stopping the API ends an open event stream itself: it does not wait out the server's
    shutdown timeout (made a minute here, longer than the bound on the stop) for the stream."""
    monkeypatch.setattr(app_module, "SHUTDOWN_S", 60.0)
    async with asyncio.timeout(20):
        async with serve_api(api.ledger, ApiConfig("127.0.0.1", 0)) as url:
            headers = {"Authorization": f"Bearer {api.tokens['alice']}"}
            client = httpx.AsyncClient(base_url=url, headers=headers, timeout=10)
            stream = await client.send(client.build_request("GET", "/v1/events"), stream=True)
            lines = stream.aiter_lines()
            assert await anext(lines) == "retry: 1000"
        rest = [line async for line in lines]  # the server ended the stream: no hang here
    assert not any(line.startswith("data: ") for line in rest)
    await stream.aclose()
    await client.aclose()
