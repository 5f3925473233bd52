"""`batchline queue PRESET ...`: seeds, overrides, grids, JSON and backpressure."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.controller.placing_said import host_text
from core.ledger import Ledger
from core.ledger.settings import MAX_PENDING_PER_REQUESTER
from tests.cli.conftest import Cli
from tests.core.controller.model_servers import (
    BASE,
    NOWHERE,
    REFINER,
    ModelServers,
    add_ckpt_preset,
    model_servers,
)
from tests.core.helpers import succeed

__all__ = ["model_servers"]


def params(home: Path, ids: list[str]) -> list[dict[str, object]]:
    with Ledger(home) as ledger:
        return [ledger.job(job_id).params for job_id in ids]


def queued(cli: Cli, *args: str) -> list[str]:
    result = cli("queue", "noise", *args)
    assert result.code == 0, result.err
    return result.out.split()


def test_without_seed_options_one_job_keeps_the_workflow_seed(
    cli: Cli, noise: str, home: Path
) -> None:
    ids = queued(cli)
    assert len(ids) == 1
    assert ids[0].startswith("job_")
    assert params(home, ids) == [{}]


def test_count_and_sequence(cli: Cli, noise: str, home: Path) -> None:
    assert params(home, queued(cli, "--count", "3")) == [{"2.seed": s} for s in (0, 1, 2)]
    ids = queued(cli, "--count", "3", "--seed-start", "10", "--seed-step", "5")
    assert params(home, ids) == [{"2.seed": s} for s in (10, 15, 20)]


def test_explicit_seeds(cli: Cli, noise: str, home: Path) -> None:
    ids = queued(cli, "--seeds", "7,3,99")
    assert params(home, ids) == [{"2.seed": s} for s in (7, 3, 99)]


def test_random_seeds_are_distinct_and_recorded(cli: Cli, noise: str, home: Path) -> None:
    ids = queued(cli, "--random-seeds", "--count", "4")
    seeds = [p["2.seed"] for p in params(home, ids)]
    assert len(set(seeds)) == 4


def test_set_and_seed_input(cli: Cli, noise: str, home: Path) -> None:
    ids = queued(cli, "--count", "2", "--seed-input", "1.color", "--set", "2.strength=0.25")
    assert params(home, ids) == [
        {"1.color": 0, "2.strength": 0.25},
        {"1.color": 1, "2.strength": 0.25},
    ]


def test_grid_of_two_axes_keeps_seeds(cli: Cli, noise: str, home: Path) -> None:
    ids = queued(cli, "--grid", "2.strength=0.1,0.9", "--grid", "1.width=32,64,96")
    jobs = params(home, ids)
    assert len(jobs) == 6
    assert {(p["2.strength"], p["1.width"]) for p in jobs} == {
        (s, w) for s in (0.1, 0.9) for w in (32, 64, 96)
    }
    assert all("2.seed" not in p for p in jobs)


def test_json_requester_and_priority(cli: Cli, noise: str, home: Path) -> None:
    result = cli(
        "queue", "noise", "--count", "2", "--requester", "bob", "--priority", "5", "--json"
    )
    assert result.code == 0
    listed = result.json()
    assert [set(item) >= {"id", "batch"} for item in listed] == [True, True]
    with Ledger(home) as ledger:
        jobs = [ledger.job(item["id"]) for item in listed]
    assert {(job.requester, job.priority) for job in jobs} == {("bob", 5)}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seeds", "1,x"], "argument --seeds"),
        (["--grid", "nonsense"], "argument --grid"),
        (["--seeds", "1,2", "--random-seeds"], "choose one way"),
        (["--seeds", "1,2", "--count", "2"], "--count does not go with --seeds"),
        (["--count", "0"], "--count must be at least 1"),
        (["--set", "9.nope=1"], "node 9 is not in the workflow"),
        (["--set", "1.width=wide"], "node 1, input 'width'"),
        (["--grid", "1.width=1", "--grid", "1.height=1", "--grid", "2.strength=1"], "at most 2"),
        (["--seed-input", "1.image", "--count", "2"], ""),
    ],
)
def test_bad_options_are_one_line_exit_2(
    cli: Cli, noise: str, home: Path, args: list[str], message: str
) -> None:
    result = cli("queue", "noise", *args)
    assert result.code == 2
    (line,) = result.err.strip().splitlines()
    assert message in line
    with Ledger(home) as ledger:
        assert ledger.jobs() == []


def test_unknown_preset_is_exit_2(cli: Cli) -> None:
    result = cli("queue", "ghost")
    assert result.code == 2
    assert result.err.strip() == "batchline: no preset named 'ghost'"


def test_backpressure_says_how_many_are_ahead(cli: Cli, noise: str) -> None:
    first = cli("queue", "noise", "--count", "2")
    assert "ahead" not in first.err
    assert "no controller is running" in first.err
    second = cli("queue", "noise", "--count", "4")
    assert "2 jobs ahead; 4 new jobs wait in pending" in second.err
    assert "position 6" in second.err
    assert second.out.split()
    assert len(second.out.split()) == 4


def test_backpressure_counts_only_what_a_higher_priority_waits_behind(cli: Cli, noise: str) -> None:
    cli("queue", "noise", "--count", "4")
    urgent = cli("queue", "noise", "--count", "4", "--priority", "5")
    assert "0 jobs ahead; 4 new jobs wait in pending" in urgent.err
    assert "position 4)" in urgent.err
    later = cli("queue", "noise", "--count", "2", "--priority", "-1")
    assert "8 jobs ahead; 2 new jobs wait in pending" in later.err


def test_queue_says_the_wait_of_the_last_new_job(cli: Cli, noise: str, home: Path) -> None:
    ids = queued(cli, "--count", "3")
    with Ledger(home) as ledger:
        for job_id, seconds in zip(ids[:2], (8.0, 12.0), strict=True):
            pid = f"p-{job_id}"
            ledger.submit_attempt(job_id, pid, "http://127.0.0.1:8188", "wf")
            ledger.observe_queued(pid, 1)
            ledger.observe_running(pid)
            succeed(ledger, pid, [], "", (500.0, 500.0 + seconds))
    result = cli("queue", "noise", "--count", "4")
    assert "1 jobs ahead; 4 new jobs wait in pending" in result.err
    assert "(last at position 5, about 50 s until the last is done)" in result.err, (
        "1 job left + 4 new, 10 s each (the median)"
    )


def test_a_paused_ledger_is_mentioned(cli: Cli, noise: str) -> None:
    assert cli("pause").code == 0
    assert "dispatch is paused" in cli("queue", "noise").err
    assert cli("resume").code == 0
    assert "dispatch is paused" not in cli("queue", "noise").err


def test_past_the_requesters_quota_nothing_is_queued_and_the_wait_is_said(
    cli: Cli, noise: str, home: Path
) -> None:
    with Ledger(home) as ledger:
        MAX_PENDING_PER_REQUESTER.set(ledger, 4)
    queued(cli, "--count", "3", "--requester", "ann")
    refused = cli("queue", "noise", "--count", "2", "--requester", "ann")
    assert (refused.code, refused.out) == (1, "")
    assert refused.err == (
        "batchline: busy: ann has 3 unfinished jobs and may have 4; the 2 new jobs were not "
        "queued (the last would be at position 5); try again in 10 s (no estimate yet)\n"
    )
    with Ledger(home) as ledger:
        assert len(ledger.jobs()) == 3
    assert len(queued(cli, "--count", "1", "--requester", "ann")) == 1, "one still fits"
    too_many = cli("queue", "noise", "--count", "5", "--requester", "bob")
    assert too_many.code == 2
    assert "a batch of 5 jobs is more than the 4 one requester may have" in too_many.err


def test_name_names_the_batch(cli: Cli, noise: str, home: Path) -> None:
    (job_id,) = queued(cli, "--name", "Fox study")
    (unnamed,) = queued(cli)
    with Ledger(home) as ledger:
        assert ledger.batch(ledger.job(job_id).batch).name == "Fox study"
        assert ledger.batch(ledger.job(unnamed).batch).name is None
    result = cli("queue", "noise", "--name", "x" * 201)
    assert result.code != 0
    assert result.err.strip().count("\n") == 0
    assert "at most 200 characters" in result.err


def test_queue_says_per_server_what_the_batch_lacks(cli: Cli, model_servers: ModelServers) -> None:
    cli.server = ",".join(model_servers.urls)
    with Ledger(cli.home) as ledger:
        model_servers.store_offers(ledger)
        add_ckpt_preset(ledger)
    result = cli("queue", "ckpt", "--grid", f"4.ckpt_name={BASE},{REFINER}")
    assert result.code == 0
    assert len(result.out.split()) == 2
    full, base_only = host_text(model_servers.full.url), host_text(model_servers.base_only.url)
    assert f"batchline: {full} has everything; {base_only} lacks {REFINER}\n" in result.err
    assert "no server can run" not in result.err


def test_a_batch_no_server_can_run_is_queued_and_said_plainly(
    cli: Cli, model_servers: ModelServers, home: Path
) -> None:
    cli.server = ",".join(model_servers.urls)
    with Ledger(cli.home) as ledger:
        model_servers.store_offers(ledger)
        add_ckpt_preset(ledger)
    result = cli("queue", "ckpt", "--set", f"4.ckpt_name={NOWHERE}", "--count", "2")
    assert result.code == 0
    ids = result.out.split()
    assert len(ids) == 2  # queued all the same: they wait
    (said,) = [line for line in result.err.splitlines() if "no server can run" in line]
    assert said.startswith("batchline: no server can run any of its jobs now (")
    assert said.endswith("they wait until one can")
    assert params(home, ids)[0]["4.ckpt_name"] == NOWHERE
