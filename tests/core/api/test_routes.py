"""The API's routes: answers to unknown, foreign and over-quota requests in one JSON error shape,
never a 500; a requester sees and changes only its own jobs and presets (the rule holds in the
ledger's store too); every number in a path or query is ASCII digits within bounds, every name
follows the one rule of names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from core.batch import BatchSpec, default_requester, queue_batch
from core.errors import NotYours, UnknownRecord
from core.job_state import JobState
from core.ledger import NewJob
from core.presets import preset_from_api
from core.presets.storing import store_preset
from tests.core.api.conftest import Api
from tests.core.helpers import NOISE_WORKFLOW, succeed

pytestmark = pytest.mark.asyncio


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


CHANGED = {
    **NOISE_WORKFLOW,
    "2": {**NOISE_WORKFLOW["2"], "inputs": {"seed": 7, "strength": 0.9, "image": ["1", 0]}},
}


async def test_another_token_cannot_replace_the_artists_preset(api: Api) -> None:
    artists = api.ledger.presets.get("noise").workflow_hash
    async with api.client("bob") as bob:
        refused = await bob.post("/v1/presets?name=noise&replace=true", content=json.dumps(CHANGED))
        plain = await bob.post("/v1/presets?name=noise", content=json.dumps(CHANGED))
    assert refused.status_code == 403, refused.text
    assert refused.json()["error"] == "forbidden"
    assert f"the artist's ({default_requester()}" in refused.json()["message"]
    assert plain.status_code == 403
    record = api.ledger.presets.get("noise")
    assert (record.workflow_hash, record.changed_by.via) == (artists, "local")
    batch, _ = queue_batch(api.ledger, "noise", BatchSpec())
    assert batch.workflow_hash == artists


async def test_a_requester_lists_the_artists_presets_and_its_own_only(api: Api) -> None:
    async with api.client("alice") as alice, api.client("bob") as bob:
        mine = await alice.post("/v1/presets?name=alices", content=json.dumps(CHANGED))
        assert mine.status_code == 201, mine.text
        seen_by_alice = (await alice.get("/v1/presets")).json()["presets"]
        seen_by_bob = (await bob.get("/v1/presets")).json()["presets"]
        foreign = await bob.post("/v1/batches", json={"preset": "alices"})
        also = await bob.post("/v1/presets?name=copy", content=json.dumps(CHANGED))
    assert [p["name"] for p in seen_by_alice] == ["alices", "noise"]
    assert seen_by_alice[0]["stored_by"] == {"name": "alice", "via": "api"}
    assert seen_by_alice[1]["stored_by"] == {"name": default_requester(), "via": "local"}
    assert [p["name"] for p in seen_by_bob] == ["noise"]
    assert (foreign.status_code, foreign.json()["message"]) == (404, "no preset named 'alices'")
    assert also.json()["also_named"] is None, "alice's preset is not named to bob"
    assert sorted(api.ledger.presets.names()) == ["alices", "copy", "noise"]


async def test_a_name_taken_by_another_requester_is_refused_never_replaced(api: Api) -> None:
    async with api.client("alice") as alice, api.client("bob") as bob:
        assert (await alice.post("/v1/presets?name=x", content=json.dumps(CHANGED))).is_success
        taken = await bob.post(
            "/v1/presets?name=x&replace=true", content=json.dumps(NOISE_WORKFLOW)
        )
        same = await bob.post("/v1/presets?name=x", content=json.dumps(CHANGED))
        own = await alice.post(
            "/v1/presets?name=x&replace=true", content=json.dumps(NOISE_WORKFLOW)
        )
    assert [taken.status_code, same.status_code] == [403, 403]
    assert "another requester's" in taken.json()["message"]
    assert "alice" not in taken.json()["message"]
    assert (own.status_code, own.json()["outcome"]) == (200, "replaced")
    record = api.ledger.presets.get("x")
    assert (record.stored_by.name, record.changed_by.name) == ("alice", "alice")


async def test_the_store_itself_refuses_a_requesters_change_to_anothers(api: Api) -> None:
    bobs = api.ledger.presets_for("bob")
    with pytest.raises(NotYours, match="is not yours"):
        bobs.rename("noise", "gone")
    with pytest.raises(NotYours):
        bobs.remove("noise")
    store_preset(api.ledger, "b", preset_from_api(CHANGED, Path("b.json")), requester="bob")
    with pytest.raises(UnknownRecord):
        api.ledger.presets_for("alice").remove("b")
    bobs.rename("b", "b2")
    api.ledger.presets.rename("b2", "b3")  # the artist, locally, may change any
    record = api.ledger.presets.get("b3")
    assert (str(record.stored_by), str(record.changed_by)) == (
        "bob (API)",
        f"{default_requester()} (local)",
    )
    assert api.ledger.presets.names() == ["b3", "noise"]


NOT_ASCII_DIGITS = ["²", "١", "1_0", " 1", "1 ", "+1", "0x1", "1e3", "-1", "9" * 41]


@pytest.mark.parametrize("limit", NOT_ASCII_DIGITS)
async def test_a_page_size_not_in_ascii_digits_is_400(api: Api, limit: str) -> None:
    async with api.client() as http:
        answer = await http.get("/v1/jobs", params={"limit": limit})
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"] == "bad_request"
    assert answer.json()["message"] == "limit: must be a whole number from 1 to 10000"


@pytest.mark.parametrize("n", NOT_ASCII_DIGITS)
async def test_a_picture_number_not_in_ascii_digits_is_not_there(
    api: Api, tmp_path: Path, n: str
) -> None:
    picture = tmp_path / "a.png"
    picture.write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    _batch, (job,) = api.ledger.create_batch("noise", [NewJob({})], requester="alice")
    api.ledger.submit_attempt(job, "p1", "http://x", "wf")
    api.ledger.observe_queued("p1", 1)
    api.ledger.observe_running("p1")
    succeed(api.ledger, "p1", [str(picture)])
    async with api.client() as http:
        answer = await http.get(f"/v1/jobs/{job}/outputs/{n}")
        assert (await http.get(f"/v1/jobs/{job}/outputs/0")).status_code == 200
    assert answer.status_code == 404, answer.text
    assert answer.json()["error"] == "not_found"
    assert "numbered from 0: 0 to 0" in answer.json()["message"]


@pytest.mark.parametrize(
    ("name", "rule"),
    [
        ("a\u202eb", "a bidirectional control (U+202E)"),
        ("a\nb", "a control character (U+000A)"),
        ("a\x00b", "a control character (U+0000)"),
        ("a/b", "a path separator"),
        ("..", "cannot be called '..'"),
        ("x" * 201, "at most 200 characters"),
    ],
)
async def test_a_preset_name_breaking_the_rule_is_400_naming_it(
    api: Api, name: str, rule: str
) -> None:
    async with api.client() as http:
        answer = await http.post(
            "/v1/presets", params={"name": name}, content=json.dumps(NOISE_WORKFLOW)
        )
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"] == "bad_request"
    assert rule in answer.json()["message"]
    assert "\n" not in answer.json()["message"]
    assert [record.name for record in api.ledger.presets.all()] == ["noise"]
