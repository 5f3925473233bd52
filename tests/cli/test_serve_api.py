"""The HTTP API inside `batchline serve`, driven over loopback with the simulator behind it:
every route, its events, clients honouring Retry-After, requesters alternating; an address
taken by another program, its limits and caps."""

from __future__ import annotations

import argparse
import itertools
import json
import resource
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from cli.serve_api import ApiPlan, api_plan, api_serving
from core.api import ApiConfig
from core.api.connections import WANTED_DESCRIPTORS, ConnectionCaps
from core.controller.backpressure import Limits
from core.errors import InputError
from core.ledger import Ledger
from core.ledger.settings import MAX_BACKLOG
from simulator.thread import SimulatorThread
from tests.cli.conftest import Cli
from tests.cli.served_api import serve


@pytest.fixture
def taken() -> Iterator[int]:
    """A loopback port another program listens on."""
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        yield other.getsockname()[1]


@pytest.mark.asyncio
async def test_the_default_address_taken_turns_the_api_off_an_asked_one_stops_serve(
    tmp_path: Path, taken: int, capsys: pytest.CaptureFixture[str]
) -> None:
    with Ledger(tmp_path) as ledger:
        config = ApiConfig("127.0.0.1", taken)
        async with api_serving(ledger, ApiPlan(config, asked=False)) as address:
            assert address is None
        assert capsys.readouterr().err == (
            f"batchline: the API cannot listen on 127.0.0.1:{taken} (Address already in use): "
            "the HTTP API is off (choose another address with --listen)\n"
        )
        with pytest.raises(InputError, match=f"cannot listen on 127.0.0.1:{taken}"):
            async with api_serving(ledger, ApiPlan(config, asked=True)):
                pass


def test_the_limits_come_from_the_settings_unless_given(tmp_path: Path) -> None:
    options = {"no_api": False, "listen": None, "allow_remote": False}
    with Ledger(tmp_path) as ledger:
        MAX_BACKLOG.set(ledger, 50)
        given = argparse.Namespace(**options, max_pending_per_requester=5, max_backlog=None)
        plan = api_plan(given, ledger, servers=2)
        assert plan is not None
        assert (plan.config.limits, plan.config.servers, plan.asked) == (Limits(5, 50), 2, False)
        assert api_plan(argparse.Namespace(no_api=True), ledger, 1) is None
        assert api_plan(argparse.Namespace(), ledger, 1) is None, "`run` serves no API"


def test_the_caps_are_sized_from_the_raised_descriptor_limit(tmp_path: Path) -> None:
    """A serve started at 256 open files (macOS's default) raises it, and sizes its caps from
    the limit it then has."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    options = {"no_api": False, "listen": None, "allow_remote": False}
    given = argparse.Namespace(**options, max_pending_per_requester=None, max_backlog=None)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(256, hard), hard))
        with Ledger(tmp_path) as ledger:
            plan = api_plan(given, ledger, servers=1)
        now = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert plan is not None
    assert now == min(WANTED_DESCRIPTORS, hard)
    assert plan.config.caps == ConnectionCaps.for_descriptors(now)
    assert plan.config.caps.connections <= now // 4


def test_every_route_of_a_served_api(
    cli: Cli, noise_file: Path, sim_thread: SimulatorThread
) -> None:
    with (
        serve(cli, sim_thread.url, tokens=("alice", "bob")) as served,
        served.client("alice") as alice,
        served.client("bob") as bob,
        served.client() as nobody,
    ):
        assert nobody.get("/v1/openapi.json").json()["openapi"] == "3.1.0"
        unauthorized = nobody.get("/v1/status")
        assert unauthorized.status_code == 401
        assert unauthorized.headers["WWW-Authenticate"].startswith("Bearer")
        wrong = httpx.get(f"{served.url}/v1/jobs", headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401

        added = alice.post("/v1/presets?name=noise", content=noise_file.read_bytes())
        assert added.status_code == 201, added.text
        assert added.json()["seed_inputs"] == ["2.seed"]
        assert [p["name"] for p in alice.get("/v1/presets").json()["presets"]] == ["noise"]

        created = alice.post("/v1/batches", json={"preset": "noise", "count": 2, "seed_start": 5})
        assert created.status_code == 201, created.text
        batch, ids = created.json()["batch"], created.json()["jobs"]
        jobs = served.wait_for("alice", ids)
        assert [job["params"] for job in jobs] == [{"2.seed": 5}, {"2.seed": 6}]
        assert [job["state"] for job in jobs] == ["succeeded", "succeeded"]
        assert [job["requester"] for job in jobs] == ["alice", "alice"]
        shown = cli("show", ids[0], "--json")
        assert jobs[0] == json.loads(shown.out), "the same JSON as `batchline show --json`"
        listed = alice.get("/v1/jobs", params={"batch": batch, "state": "succeeded"})
        assert [job["id"] for job in listed.json()["jobs"]] == ids
        picture = alice.get(f"/v1/jobs/{ids[0]}/outputs/0")
        assert picture.status_code == 200
        assert picture.content == Path(jobs[0]["outputs"][0]).read_bytes()
        assert picture.content.startswith(b"\x89PNG")
        assert alice.get(f"/v1/jobs/{ids[0]}/outputs/1").status_code == 404

        # another requester sees none of it and changes none of it
        assert bob.get(f"/v1/jobs/{ids[0]}").status_code == 403
        assert bob.post(f"/v1/jobs/{ids[0]}/cancel").status_code == 403
        assert bob.post(f"/v1/batches/{batch}/cancel").status_code == 403
        assert bob.get("/v1/jobs").json() == {"jobs": [], "next": None}
        # a finished job cannot be cancelled, nor a succeeded one retried
        assert alice.post(f"/v1/jobs/{ids[0]}/cancel").status_code == 409
        assert alice.post(f"/v1/jobs/{ids[0]}/retry").status_code == 409
        assert alice.get("/v1/jobs/job_nothing").status_code == 404

        assert cli("pause").code == 0  # the next batch waits: cancel it, retry, cancel all
        paused = alice.post("/v1/batches", json={"preset": "noise", "seeds": [1, 2, 3]}).json()
        first, *_rest = paused["jobs"]
        assert alice.post(f"/v1/jobs/{first}/cancel").json() == {"job": first, "state": "cancelled"}
        retried = alice.post(f"/v1/jobs/{first}/retry").json()
        assert retried == {"job": first, "state": "pending", "attempt": 2}
        cancelled = alice.post(f"/v1/batches/{paused['batch']}/cancel").json()
        assert cancelled == {
            "batch": paused["batch"],
            "jobs": dict.fromkeys(paused["jobs"], "cancelled"),
        }

        status = alice.get("/v1/status").json()
        assert (status["requester"], status["paused"]) == ("alice", True)
        assert status["my_jobs"]["succeeded"] == 2
        assert status["my_jobs"]["cancelled"] == 3
        assert status["controller"]["running"] is True
        assert bob.get("/v1/status").json()["my_jobs"]["cancelled"] == 0


def test_events_follow_the_requesters_jobs_and_resume_after_the_last_id(
    cli: Cli, noise: str, sim_thread: SimulatorThread
) -> None:
    with serve(cli, sim_thread.url, tokens=("alice", "bob")) as served:
        bob_job = cli("queue", "noise", "--requester", "bob").out.split()
        served.wait_for("bob", bob_job)
        with served.client("alice") as alice:
            ids = alice.post("/v1/batches", json={"preset": "noise", "count": 2}).json()["jobs"]
            served.wait_for("alice", ids)
            events = _events(alice, {"Last-Event-ID": "0"}, until=lambda e: _done(e, ids))
        assert {event["data"]["requester"] for event in events} == {"alice"}
        states = [(event["data"]["id"], event["data"]["state"]) for event in events]
        assert states[-2:] == [(ids[0], "succeeded"), (ids[1], "succeeded")]
        seqs = [int(event["id"]) for event in events]
        assert seqs == sorted(seqs)

        with served.client("alice") as alice:  # resumed after the last id: only what is new
            (more,) = alice.post("/v1/batches", json={"preset": "noise"}).json()["jobs"]
            served.wait_for("alice", [more])
            last = str(seqs[-1])
            resumed = _events(alice, {"Last-Event-ID": last}, until=lambda e: _done(e, [more]))
        assert {event["data"]["id"] for event in resumed} == {more}
        assert all(int(event["id"]) > seqs[-1] for event in resumed)


def _done(events: list[dict[str, Any]], ids: list[str]) -> bool:
    finished = {e["data"]["id"] for e in events if e["data"]["state"] == "succeeded"}
    return set(ids) <= finished


def _events(
    http: httpx.Client, headers: dict[str, str], until: Callable[[list[dict[str, Any]]], bool]
) -> list[dict[str, Any]]:
    """Read the event stream until ``until(events)`` is true (within 30 s)."""
    events: list[dict[str, Any]] = []
    deadline = time.monotonic() + 30
    with http.stream("GET", "/v1/events", headers=headers) as stream:
        assert stream.headers["Content-Type"].startswith("text/event-stream")
        event: dict[str, Any] = {}
        for line in stream.iter_lines():
            if line.startswith("id: "):
                event["id"] = line[4:]
            elif line.startswith("data: "):
                event["data"] = json.loads(line[6:])
            elif not line and "data" in event:
                events.append(event)
                event = {}
                if until(events):
                    return events
            assert time.monotonic() < deadline, "the events never came"
    raise AssertionError("the stream ended")


def test_a_client_honouring_retry_after_gets_all_its_jobs_done(
    cli: Cli, noise: str, sim_thread: SimulatorThread
) -> None:
    """Quota 3: a script asking for 12 jobs, two at a time, is refused (429) while 3 are
    unfinished, waits as told, and in the end has all 12."""
    options = ("--max-pending-per-requester", "3")
    with serve(cli, sim_thread.url, *options, tokens=("script",)) as served:
        with served.client("script") as http:
            first = http.post("/v1/batches", json={"preset": "noise", "seed_start": 100})
            served.wait_for("script", first.json()["jobs"])  # a run time to estimate from
            done: list[str] = []
            refusals: list[dict[str, Any]] = []
            seed = 0
            while len(done) < 12:
                answer = http.post(
                    "/v1/batches", json={"preset": "noise", "count": 2, "seed_start": seed}
                )
                if answer.status_code == 429:
                    refusals.append(answer.json())
                    time.sleep(int(answer.headers["Retry-After"]))
                    continue
                assert answer.status_code == 201, answer.text
                done += answer.json()["jobs"]
                seed += 2
            jobs = served.wait_for("script", done)
        assert [job["state"] for job in jobs] == ["succeeded"] * 12
        assert refusals, "the quota was reached at least once"
        for refusal in refusals:
            assert refusal["error"] == "busy"
            assert refusal["reason"] == "requester_quota"
            assert refusal["estimated_wait_s"] is not None
            assert refusal["position"] >= 4
        with Ledger(served.home) as ledger:
            assert len(ledger.jobs()) == 13, "refused batches left nothing behind"


def test_two_requesters_queueing_at_once_alternate_in_comfyuis_queue(
    cli: Cli, noise: str, sim_thread: SimulatorThread
) -> None:
    with serve(cli, sim_thread.url, tokens=("alice", "bob")) as served:
        assert cli("pause").code == 0
        batches: dict[str, list[str]] = {}
        start = threading.Barrier(2)

        def queue(name: str) -> None:
            with served.client(name) as http:
                start.wait()
                answer = http.post("/v1/batches", json={"preset": "noise", "count": 20})
                batches[name] = answer.json()["jobs"]

        threads = [threading.Thread(target=queue, args=(name,)) for name in ("alice", "bob")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert cli("resume").code == 0
        served.wait_for("alice", batches["alice"])
        served.wait_for("bob", batches["bob"])
        with Ledger(served.home) as ledger:
            attempts = ledger.attempts_of([*batches["alice"], *batches["bob"]])
            owner = {job_id: name for name, ids in batches.items() for job_id in ids}
            sent = sorted(
                (attempt.number, owner[job_id])
                for job_id, tries in attempts.items()
                for attempt in tries
            )
    order = [name for _number, name in sent]
    assert len(order) == 40
    assert all(a != b for a, b in itertools.pairwise(order)), order
