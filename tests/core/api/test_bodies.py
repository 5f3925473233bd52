"""Request bodies: a bad batch is 400 naming the field, a body that is not a JSON object 400, one
past a limit 413, one not all arrived in time 408 (and one in pieces read whole)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from core.api import bodies
from core.ledger.batch_notices import NoticeChoice
from tests.core.api.conftest import Api, read_answer

pytestmark = pytest.mark.asyncio


async def test_a_body_not_all_arrived_in_time_is_408_and_one_in_pieces_is_read_whole(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bodies, "BODY_TIMEOUT_S", 0.3)
    host, port = api.url.removeprefix("http://").rsplit(":", 1)
    body = json.dumps({"preset": "noise", "count": 1}).encode()
    head = (
        f"POST /v1/batches HTTP/1.1\r\nHost: {host}:{port}\r\n"
        f"Authorization: Bearer {api.tokens['alice']}"
        f"\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    ).encode()
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(head + body[:5])
    status, answer = await read_answer(reader)
    writer.close()
    assert (status, answer["error"]) == (408, "timeout")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(head + body[:5])
    await writer.drain()
    await asyncio.sleep(0.1)
    writer.write(body[5:])
    status, answer = await read_answer(reader)
    writer.close()
    assert status == 201, answer


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, "preset: the name of a stored preset is required"),
        ({"preset": "noise", "colour": 1}, "colour: not a field of a batch"),
        ({"preset": "noise", "count": "3"}, "count: must be an integer"),
        ({"preset": "noise", "count": True}, "count: must be an integer"),
        ({"preset": "noise", "count": 0}, "count must be at least 1"),
        ({"preset": "noise", "count": 2**70}, "count: 1180591620717411303424 is out of range"),
        ({"preset": "noise", "seeds": [1, "2"]}, "seeds: must hold integers"),
        ({"preset": "noise", "seeds": [1], "count": 1}, "count does not go with seeds"),
        ({"preset": "noise", "seeds": [1], "random_seeds": True}, "not seeds and random_seeds"),
        ({"preset": "noise", "set": {"2seed": 1}}, "set: '2seed' is not of the form NODE.INPUT"),
        ({"preset": "noise", "set": {"2.seed": [1]}}, "set.2.seed: must be a string, a number"),
        ({"preset": "noise", "grid": {"2.seed": []}}, "grid.2.seed: must be a non-empty list"),
        ({"preset": "noise", "grid": {"2.strength": [0.1]}, "count": 2}, None),
        ({"preset": "noise", "set": {"9.seed": 1}}, "9"),
        ({"preset": "noise", "priority": 1.5}, "priority: must be an integer"),
        ({"preset": "noise", "zip": "2.strength"}, "zip: must be a list"),
        ({"preset": "noise", "zip": [["2.strength"]]}, "zip[0]: must be a list of two grid"),
        ({"preset": "noise", "zip": [["2.strength", 3]]}, "zip[0]: 3 is not of the form"),
        (
            {"preset": "noise", "grid": {"2.strength": [0.5]}, "zip": [["2.strength", "1.width"]]},
            "zip: 1.width is not an axis of grid",
        ),
        (
            {
                "preset": "noise",
                "grid": {"2.strength": [0.1, 0.2], "1.width": [64, 96, 128]},
                "zip": [["2.strength", "1.width"]],
            },
            "zipped axes need the same number of values: 2.strength has 2, 1.width has 3",
        ),
        ({"preset": "noise", "wildcards": []}, "wildcards: must be an object"),
        (
            {"preset": "noise", "wildcards": {"3.filename_prefix": "every"}},
            "wildcards.3.filename_prefix: must be 'random' or 'all'",
        ),
        (
            {"preset": "noise", "wildcards": {"2.strength": "all"}},
            "node 2, input 'strength' is not a text input",
        ),
        (
            {
                "preset": "noise",
                "set": {"3.filename_prefix": "{a|b|c|d|e|f|g|h|i|j}" * 5},
                "wildcards": {"3.filename_prefix": "all"},
            },
            "node 3, input 'filename_prefix': its wildcards expand to 100,000 texts",
        ),
        (
            {"preset": "noise", "grid": {"2.strength": [{"picture": {}}]}},
            "grid.2.strength[0]: an object must be a picture",
        ),
        ({"preset": "noise", "grid": {"2.strength": [[0.5]]}}, "grid.2.strength: must be"),
    ],
)
async def test_a_bad_batch_is_400_naming_the_field(
    api: Api, body: dict[str, Any], message: str | None
) -> None:
    async with api.client() as http:
        answer = await http.post("/v1/batches", json=body)
    if message is None:
        assert answer.status_code == 201, answer.text
        return
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"] == "bad_request"
    assert message in answer.json()["message"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"[1, 2]", "the body must be a JSON object"),
        (b"{", "the body is not JSON"),
        (b'{"preset": NaN}', "NaN is not a number JSON allows"),
        (b'{"preset": "\\ud800"}', "preset holds text that is not valid Unicode"),
        (b"[" * 100_000, "the body is nested too deeply"),
        (b'{"set": {"1.x": ' + b"[" * 960 + b"]" * 960 + b"}}", "nested too deeply"),
    ],
)
async def test_a_body_that_is_not_a_json_object_is_400(
    api: Api, content: bytes, message: str
) -> None:
    async with api.client() as http:
        answer = await http.post("/v1/batches", content=content)
    assert answer.status_code == 400
    assert message in answer.json()["message"]


async def test_bodies_and_batches_past_a_limit_are_413(api: Api) -> None:
    async with api.client() as http:
        big = await http.post("/v1/batches", content=b" " * (300 * 1024))
        batch = await http.post("/v1/batches", json={"preset": "noise", "count": 5})
    assert (big.status_code, big.json()["error"]) == (413, "too_large")
    assert batch.status_code == 413
    assert "a batch of 5 jobs is more than the 4 one requester may have" in batch.json()["message"]


@pytest.mark.parametrize(
    "body",
    [
        {"preset": "noise", "count": 1000, "grid": {"2.strength": [i / 1000 for i in range(1000)]}},
        {"preset": "noise", "count": 1_000_000},
        {
            "preset": "noise",
            "grid": {"2.strength": [i / 400 for i in range(400)], "1.width": list(range(64, 364))},
        },
    ],
)
async def test_a_batch_of_more_jobs_than_a_batch_may_have_is_413(
    api: Api, body: dict[str, Any]
) -> None:
    """docs/api.md: a batch larger than a limit by itself gets 413 (a grid of 1,000,000 jobs
    was 400)."""
    async with api.client() as http:
        answer = await http.post("/v1/batches", json=body)
    assert (answer.status_code, answer.json()["error"]) == (413, "too_large"), answer.text
    assert "more than 100000" in answer.json()["message"]
    assert api.ledger.batches() == []


async def test_zipped_axes_make_n_jobs_and_every_text_a_job(api: Api) -> None:
    zipped = {
        "preset": "noise",
        "grid": {"2.strength": [0.1, 0.2, 0.3], "1.width": [64, 96, 128]},
        "zip": [["2.strength", "1.width"]],
    }
    every = {
        "preset": "noise",
        "set": {"3.filename_prefix": "{fox|owl}"},
        "wildcards": {"3.filename_prefix": "all"},
    }
    async with api.client() as http:
        three = await http.post("/v1/batches", json=zipped)  # 9 would pass the quota of 4
        assert three.status_code == 201, three.text
    assert len(three.json()["jobs"]) == 3
    pairs = [
        (job.params["2.strength"], job.params["1.width"])
        for job in api.ledger.jobs(batch=three.json()["batch"])
    ]
    assert pairs == [(0.1, 64), (0.2, 96), (0.3, 128)]
    async with api.client("bob") as http:
        two = await http.post("/v1/batches", json=every)
    assert two.status_code == 201, two.text
    batch = api.ledger.batch(two.json()["batch"])
    assert [j.params["3.filename_prefix"] for j in api.ledger.jobs(batch=batch.id)] == [
        "fox",
        "owl",
    ]
    assert batch.spec["grid"] == [{"input": "3.filename_prefix", "values": ["fox", "owl"]}]
    assert batch.spec["wildcards"] == {"3.filename_prefix": "all"}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"webhook": "ftp://example.org/x"}, "webhook: the webhook address must start with http"),
        ({"webhook": 5}, "webhook: must be a string"),
        ({"webhook_template": "slack"}, "webhook_template: goes with webhook"),
        ({"webhook": "https://example.org/h", "webhook_template": "teams"}, "must be one of"),
        ({"notify": "no"}, "notify: must be true or false"),
    ],
)
async def test_a_bad_webhook_or_notify_is_400(api: Api, body: dict[str, Any], message: str) -> None:
    async with api.client() as http:
        answer = await http.post("/v1/batches", json={"preset": "noise", **body})
    assert answer.status_code == 400, answer.text
    assert message in answer.json()["message"]


async def test_a_batch_s_webhook_and_notify_are_kept_with_it(api: Api) -> None:
    body = {"webhook": "https://ntfy.sh/renders", "webhook_template": "ntfy", "notify": False}
    async with api.client() as http:
        answer = await http.post("/v1/batches", json={"preset": "noise", **body})
    assert answer.status_code == 201, answer.text
    choice = api.ledger.notices.get(answer.json()["batch"]).choice
    assert choice == NoticeChoice(False, "https://ntfy.sh/renders", "ntfy")
