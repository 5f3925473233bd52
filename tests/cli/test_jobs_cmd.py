"""`batchline jobs` and `batchline show JOB`: the jobs a run left in the ledger, filtered, as a
table or JSON, and each job's story (an out-of-memory failure with its node, an unanswered
submission)."""

from __future__ import annotations

from pathlib import Path

from core.job_state import AttemptResult, Reason
from core.ledger import Ledger
from core.ledger.attempt_error import AttemptError, ErrorKind
from simulator.thread import SimulatorThread
from tests.cli.conftest import Cli, run_until_idle
from tests.core.controller.model_servers import (
    BASE,
    NOWHERE,
    REFINER,
    ModelServers,
    add_ckpt_preset,
    model_servers,
)
from tests.core.helpers import succeed_late

__all__ = ["model_servers"]

ISO_Z = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"


def test_job_json_shape(cli: Cli, noise: str, sim_thread: SimulatorThread, outputs: Path) -> None:
    (job_id,) = cli("queue", "noise", "--seeds", "42").out.split()
    run_until_idle(cli, sim_thread)
    job = cli("show", job_id, "--json").json()
    assert {"id", "batch", "preset", "state", "reason", "requester", "params"} <= set(job)
    assert (job["id"], job["preset"], job["state"], job["reason"]) == (
        job_id,
        "noise",
        "succeeded",
        None,
    )
    assert job["params"] == {"2.seed": 42}
    (attempt,) = job["attempts"]
    assert {"n", "prompt_id", "server", "result", "reason", "error"} <= set(attempt)
    assert (attempt["n"], attempt["result"], attempt["server"]) == (1, "succeeded", sim_thread.url)
    for key in ("queued_at", "started_at", "finished_at"):
        assert attempt[key] is not None
        assert __import__("re").match(ISO_Z, attempt[key])
    assert job["outputs"] == attempt["outputs"]
    assert len(job["outputs"]) == 1
    moves = [(t["from"], t["to"], t["attempt"]) for t in job["transitions"]]
    assert moves[-1] == ("running", "succeeded", 1) or moves[-1][1] == "succeeded"
    assert all({"at", "from", "to", "attempt", "cause"} <= set(t) for t in job["transitions"])
    assert cli("jobs", "--json").json() == [{**job, "place": None, "estimated_wait_s": None}]


def test_show_tells_an_oom_failure_with_its_node(
    cli: Cli, noise: str, sim_thread: SimulatorThread, outputs: Path
) -> None:
    sim_thread.fail_next(1, "oom")
    (job_id,) = cli("queue", "noise").out.split()
    printed = run_until_idle(cli, sim_thread)
    assert f"{job_id} failed (out of memory): out of memory in EmptyImage (node 1)" in printed
    story = cli("show", job_id).out
    assert story.startswith(f"{job_id}: failed (out of memory)")
    assert "attempt 1: failed (out of memory)" in story
    assert "error: out of memory in EmptyImage (node 1)\n" in story
    assert "-> failed" in story


def test_jobs_table_and_filters(cli: Cli, noise: str) -> None:
    ids = cli("queue", "noise", "--count", "2").out.split()
    assert cli("cancel", ids[0]).code == 0
    table = cli("jobs").out.splitlines()
    header = ["JOB", "STATE", "REASON", "ATTEMPT", "REQUESTER", "PLACE", "PARAMS"]
    assert table[0].split() == header
    assert len(table) == 3
    at = table[0].index("PLACE")  # a reason's words hold spaces: read the place by column
    places = {row.split()[0]: row[at:].split()[0] for row in table[1:]}
    assert (places[ids[0]], places[ids[1]]) == ("-", "#1"), "no run time to estimate from yet"
    pending = cli("jobs", "--state", "pending", "--json").json()
    assert [job["id"] for job in pending] == [ids[1]]
    assert (pending[0]["place"], pending[0]["estimated_wait_s"]) == (1, None)
    batch = pending[0]["batch"]
    assert len(cli("jobs", "--batch", batch, "--json").json()) == 2
    assert cli("jobs", "--batch", "batch_nope").code == 2
    assert cli("jobs", "--state", "bogus").code == 2
    assert cli("show", "job_nope").err.strip() == "batchline: no job 'job_nope'"


def test_show_tells_the_story_of_an_unanswered_submission(cli: Cli, noise: str, home: Path) -> None:
    first, second = cli("queue", "noise", "--count", "2").out.split()
    unanswered = AttemptError(ErrorKind.unknown_outcome, "POST /prompt: no answer in time")
    with Ledger(home) as ledger:
        ledger.submit_attempt(first, "old", "http://127.0.0.1:8188", "wf")
        ledger.note_unknown_outcome("old", Reason.timeout, unanswered)
        error = ledger.attempt("old").error
        ledger.observe_retryable("old", AttemptResult.lost, Reason.timeout, error)
        ledger.submit_attempt(first, "new", "http://127.0.0.1:8188", "wf")
        succeed_late(ledger, "old", ["/out/late.png"])
        ledger.submit_attempt(second, "slow", "http://127.0.0.1:8188", "wf")
        ledger.note_unknown_outcome("slow", Reason.timeout, unanswered)

    late = cli("show", first).out
    assert "attempt 1: succeeded, prompt old" in late
    assert "error: no answer to its submission\n" in late
    assert "It reached the server all the same and succeeded." in late
    assert "attempt 2: cancelled (an earlier try finished first), prompt new" in late
    assert "error: withdrawn\n      Message: attempt 1, answered late, succeeded first" in late
    assert "answered late, succeeded first; attempt 2 withdrawn" in late
    waiting = cli("show", second).out
    assert "attempt 1: submitting (no answer in time), prompt slow" in waiting
    assert "Message: POST /prompt: no answer in time\n" in waiting
    assert "It is being looked up on the server." in waiting


def test_a_waiting_job_says_why_in_show_and_jobs(cli: Cli, model_servers: ModelServers) -> None:
    cli.server = ",".join(model_servers.urls)
    with Ledger(cli.home) as ledger:
        model_servers.store_offers(ledger)
        add_ckpt_preset(ledger)
    waiting, runnable = cli("queue", "ckpt", "--grid", f"4.ckpt_name={NOWHERE},{BASE}").out.split()
    story = cli("show", waiting).out.splitlines()
    assert f"  waiting: no server has {NOWHERE}" in story
    assert not any(line.startswith("  waiting") for line in cli("show", runnable).out.splitlines())
    assert cli("show", waiting, "--json").json()["waiting_for"] == f"no server has {NOWHERE}"
    listed = {job["id"]: job["waiting_for"] for job in cli("jobs", "--json").json()}
    assert listed == {waiting: f"no server has {NOWHERE}", runnable: None}
    table = cli("jobs").out.splitlines()
    assert f"waiting: no server has {NOWHERE}" in next(row for row in table if waiting in row)


def test_each_attempt_says_why_it_went_where_it_went(
    cli: Cli, model_servers: ModelServers, outputs: Path
) -> None:
    """A real run over two servers: the refiner's job goes to the one server that has it."""
    cli.server = ",".join(model_servers.urls)
    with Ledger(cli.home) as ledger:
        add_ckpt_preset(ledger)
    refiner, base = cli("queue", "ckpt", "--grid", f"4.ckpt_name={REFINER},{BASE}").out.split()
    result = cli("run", "--until-idle", "--poll-interval", "0.05")
    assert result.code == 0, result.err
    job = cli("show", refiner, "--json").json()
    assert job["state"] == "succeeded"
    (attempt,) = job["attempts"]
    assert attempt["server"] == model_servers.full.url
    assert attempt["placed_because"]
    assert f"    placed: {attempt['placed_because']}" in cli("show", refiner).out.splitlines()
    assert cli("show", base, "--json").json()["attempts"][0]["placed_because"]
