"""The API's answers to bad, unauthorised, foreign and too large requests: one JSON error
shape, the status the request deserves, never a 500."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from core.job_state import JobState
from core.ledger import NewJob
from tests.core.api.conftest import Api
from tests.core.helpers import NOISE_WORKFLOW, succeed

pytestmark = pytest.mark.asyncio


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


async def test_without_a_known_token_only_the_document_is_served(api: Api) -> None:
    async with api.client(None) as http:
        assert (await http.get("/v1/openapi.json")).status_code == 200
        missing = await http.get("/v1/jobs")
        wrong = await http.get("/v1/jobs", headers={"Authorization": "Bearer btl_nope"})
        basic = await http.get("/v1/jobs", headers={"Authorization": "Basic YTpi"})
    for answer in (missing, wrong, basic):
        assert answer.status_code == 401
        assert answer.json()["error"] == "unauthorized"
        assert answer.headers["WWW-Authenticate"] == 'Bearer realm="batchline"'
    api.ledger.tokens.revoke("alice")
    async with api.client() as http:
        assert (await http.get("/v1/status")).status_code == 401


async def test_unknown_things_are_404_and_wrong_methods_405(api: Api) -> None:
    async with api.client() as http:
        route = await http.get("/v1/nothing")
        job = await http.get("/v1/jobs/job_x")
        batch = await http.post("/v1/batches/batch_x/cancel")
        retried = await http.post("/v1/batches/batch_x/retry")
        preset = await http.post("/v1/batches", json={"preset": "ghost"})
        method = await http.delete("/v1/jobs")
        surrogate = await http.get("/v1/jobs/%ED%A0%80")
    assert [a.status_code for a in (route, job, batch, retried, preset)] == [404] * 5
    assert job.json() == {"error": "not_found", "message": "no job 'job_x'"}
    assert preset.json()["message"] == "no preset named 'ghost'"
    assert (method.status_code, method.json()["error"]) == (405, "method_not_allowed")
    assert "GET" in method.headers["Allow"]
    assert surrogate.status_code in (400, 404)


async def test_bodies_and_batches_past_a_limit_are_413(api: Api) -> None:
    async with api.client() as http:
        big = await http.post("/v1/batches", content=b" " * (300 * 1024))
        batch = await http.post("/v1/batches", json={"preset": "noise", "count": 5})
    assert (big.status_code, big.json()["error"]) == (413, "too_large")
    assert batch.status_code == 413
    assert "a batch of 5 jobs is more than the 4 one requester may have" in batch.json()["message"]


async def test_past_the_quota_429_says_why_where_and_how_long(api: Api) -> None:
    async with api.client() as alice, api.client("bob") as bob:
        assert (await alice.post("/v1/batches", json={"preset": "noise", "count": 3})).is_success
        refused = await alice.post("/v1/batches", json={"preset": "noise", "count": 2})
        assert refused.status_code == 429
        assert refused.headers["Retry-After"] == "10"
        body = refused.json()
        assert body["error"] == "busy"
        assert (body["reason"], body["position"], body["estimated_wait_s"]) == (
            "requester_quota",
            5,
            None,
        )
        assert (await bob.post("/v1/batches", json={"preset": "noise", "count": 3})).is_success
        backlog = await bob.post("/v1/batches", json={"preset": "noise"})
        assert (backlog.status_code, backlog.json()["reason"]) == (429, "backlog")
    assert len(api.ledger.jobs()) == 6, "refused batches queued nothing"


async def test_a_requester_sees_and_changes_only_its_own_jobs(api: Api) -> None:
    async with api.client() as alice, api.client("bob") as bob:
        created = (await alice.post("/v1/batches", json={"preset": "noise", "count": 2})).json()
        job = created["jobs"][0]
        assert [a.status_code for a in await _touch(bob, job, created["batch"])] == [403] * 6
        listed = await bob.get("/v1/jobs", params={"batch": created["batch"]})
        assert listed.status_code == 403
        mine = await alice.get("/v1/jobs", params={"state": "pending,queued"})
        assert [j["id"] for j in mine.json()["jobs"]] == created["jobs"]
        wrong_state = await alice.get("/v1/jobs", params={"state": "done"})
        assert wrong_state.status_code == 400
        assert "state: 'done' is not one of" in wrong_state.json()["message"]
    assert {j.state for j in api.ledger.jobs()} == {JobState.pending}


async def _touch(http: Any, job: str, batch: str) -> list[Any]:
    return [
        await http.get(f"/v1/jobs/{job}"),
        await http.post(f"/v1/jobs/{job}/cancel"),
        await http.post(f"/v1/jobs/{job}/retry"),
        await http.get(f"/v1/jobs/{job}/outputs/0"),
        await http.post(f"/v1/batches/{batch}/cancel"),
        await http.post(f"/v1/batches/{batch}/retry"),
    ]


async def test_a_pictures_file_is_served_while_it_is_there(api: Api, tmp_path: Path) -> None:
    picture = tmp_path / "a.png"
    picture.write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    _batch, (job,) = api.ledger.create_batch("noise", [NewJob({})], requester="alice")
    api.ledger.submit_attempt(job, "p1", "http://x", "wf")
    api.ledger.observe_queued("p1", 1)
    api.ledger.observe_running("p1")
    succeed(api.ledger, "p1", [str(picture)])
    async with api.client() as http:
        served = await http.get(f"/v1/jobs/{job}/outputs/0")
        assert served.content == picture.read_bytes()
        assert (await http.get(f"/v1/jobs/{job}/outputs/x")).status_code == 404
        past = await http.get(f"/v1/jobs/{job}/outputs/1")
        assert past.json()["message"] == f"job {job} has no picture 1 (numbered from 0: 0 to 0)"
        picture.unlink()
        gone = await http.get(f"/v1/jobs/{job}/outputs/0")
    assert gone.status_code == 404
    assert "is no longer at" in gone.json()["message"]


async def test_presets_are_added_from_a_file_and_replaced_only_when_asked(api: Api) -> None:
    changed = {
        **NOISE_WORKFLOW,
        "2": {**NOISE_WORKFLOW["2"], "inputs": {"seed": 7, "strength": 0.9, "image": ["1", 0]}},
    }
    async with api.client() as http:
        same = await http.post("/v1/presets?name=again", content=json.dumps(NOISE_WORKFLOW))
        assert (same.status_code, same.json()["also_named"]) == (201, "noise")
        taken = await http.post("/v1/presets?name=again", content=json.dumps(changed))
        assert taken.status_code == 400
        assert "already exists with other content" in taken.json()["message"]
        replaced = await http.post(
            "/v1/presets?name=again&replace=true&seed_input=2.seed", content=json.dumps(changed)
        )
        assert (replaced.status_code, replaced.json()["outcome"]) == (200, "replaced")
        unnamed = await http.post("/v1/presets", content=json.dumps(changed))
        garbage = await http.post("/v1/presets?name=x", content=b"not a workflow")
        flag = await http.post("/v1/presets?name=x&replace=maybe", content=b"{}")
        names = [p["name"] for p in (await http.get("/v1/presets")).json()["presets"]]
    assert unnamed.json()["message"].startswith("name: the preset's name is required")
    assert garbage.status_code == 400
    assert garbage.json()["message"].startswith("x: ")
    assert flag.json()["message"] == "replace: must be true or false, not 'maybe'"
    assert names == ["again", "noise"]


async def test_status_says_who_asks_the_limits_and_only_its_own_counts(api: Api) -> None:
    api.ledger.create_batch("noise", [NewJob({}), NewJob({})], requester="bob")
    api.ledger.create_batch("noise", [NewJob({})], requester="alice")
    async with api.client() as http:
        status = (await http.get("/v1/status")).json()
    assert status["requester"] == "alice"
    assert status["controller"] is None
    assert status["limits"] == {"max_pending_per_requester": 4, "max_backlog": 6}
    assert status["my_jobs"]["pending"] == 1
    assert "jobs" not in status, "no other requester's counts"
    assert status["latest_change"] == api.ledger.latest_seq() > 0


async def test_status_tells_no_pid_nor_anything_of_this_computer(api: Api) -> None:
    """The controller's published status names folders, errors and other requesters' jobs:
    a requester is told only whether it runs and is connected."""
    published = {
        "connection": "connected",
        "local_error": "cannot write /home/root/Pictures",
        "positions": {"job_x": 0},
    }
    api.ledger.controller_runs.begin("run-status", 4242, "terminal", published)
    async with api.client() as http:
        status = (await http.get("/v1/status")).json()
    assert status["controller"] == {"running": True, "connection": "connected"}
    assert "4242" not in json.dumps(status)


async def test_jobs_come_in_pages_that_follow_one_another(api: Api) -> None:
    _batch, jobs = api.ledger.create_batch("noise", [NewJob({})] * 5, requester="alice")
    api.ledger.create_batch("noise", [NewJob({})] * 2, requester="bob")
    seen: list[str] = []
    pages = 0
    async with api.client() as http:
        params: dict[str, Any] = {"limit": 2}
        while True:
            page = (await http.get("/v1/jobs", params=params)).json()
            seen += [job["id"] for job in page["jobs"]]
            pages += 1
            if page["next"] is None:
                break
            params["after"] = page["next"]
        whole = (await http.get("/v1/jobs")).json()
        wrong_limit = await http.get("/v1/jobs", params={"limit": 0})
        wrong_after = await http.get("/v1/jobs", params={"after": "job_nothing"})
    assert seen == jobs  # bob's two are not alice's to page through
    assert pages == 3
    assert [job["id"] for job in whole["jobs"]] == seen
    assert whole["next"] is None
    assert wrong_limit.status_code == 400
    assert "limit: must be a whole number from 1 to 10000" in wrong_limit.json()["message"]
    assert wrong_after.status_code == 400
    assert wrong_after.json()["message"] == "after: no job 'job_nothing'"


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
