"""`batchline queue PRESET ...`: seeds, overrides, grids, JSON and backpressure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.batch.wildcards import expand_random
from core.controller.placing_said import host_text
from core.ledger import Ledger
from core.ledger.batch_notices import NoticeChoice
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
from tests.core.helpers import NOISE_WORKFLOW, succeed

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
        (["--grid", "1.width=64", "--grid", "1.width=96"], "two grid axes sweep 1.width"),
        (["--zip", "1.width"], "argument --zip"),
        (["--grid", "1.width=64,96", "--zip", "1.width,1.height"], "--zip: 1.height is not an"),
        (["--wildcards", "3.filename_prefix=some"], "the mode is random or all"),
        (["--values", "1.width"], "argument --values"),
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
    counted = queued(cli, "--count", "3")
    with Ledger(home) as ledger:
        assert ledger.batch(ledger.job(job_id).batch).name == "Fox study"
        assert ledger.batch(ledger.job(unnamed).batch).name == "noise", "by its preset"
        assert ledger.batch(ledger.job(counted[0]).batch).name == "noise · 3 seeds"
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


# --- lists, zips and wildcards ---------------------------------------------------------------

TEXTS = {
    **NOISE_WORKFLOW,
    "4": {"class_type": "PrimitiveStringMultiline", "inputs": {"value": "a fox"}},
}


@pytest.fixture
def texts(cli: Cli, tmp_path: Path) -> str:
    """NOISE_WORKFLOW with a text node (4.value), stored as preset ``texts``."""
    path = tmp_path / "texts.json"
    path.write_text(json.dumps(TEXTS), encoding="utf-8")
    assert cli("preset", "add", str(path)).code == 0
    return "texts"


def test_values_from_a_list_a_csv_column_and_a_grid_make_three_axes_in_order(
    cli: Cli, texts: str, home: Path, tmp_path: Path
) -> None:
    (tmp_path / "prompts.txt").write_text("a fox\n\n  an owl  \na hare\n", encoding="utf-8")
    (tmp_path / "table.csv").write_text("name,width\nsmall,64\nlarge,96\n", encoding="utf-8")
    result = cli(
        "queue",
        texts,
        "--values",
        f"4.value=@{tmp_path / 'prompts.txt'}",
        "--values",
        f"1.width=@{tmp_path / 'table.csv'}:width",
        "--grid",
        "2.strength=0.25,0.75",
    )
    assert result.code == 0, result.err
    jobs = params(home, result.out.split())
    assert [(p["4.value"], p["1.width"], p["2.strength"]) for p in jobs] == [
        (text, width, strength)  # as the sheet reads them: the first axis fastest
        for strength in (0.25, 0.75)
        for width in (64, 96)
        for text in ("a fox", "an owl", "a hare")
    ]
    with Ledger(home) as ledger:
        spec = ledger.batch(ledger.job(result.out.split()[0]).batch).spec
    assert [axis["input"] for axis in spec["grid"]] == ["4.value", "1.width", "2.strength"]


def test_a_missing_list_file_is_refused_naming_it_and_nothing_is_queued(
    cli: Cli, texts: str, home: Path, tmp_path: Path
) -> None:
    missing = tmp_path / "nowhere.txt"
    result = cli("queue", texts, "--values", f"4.value=@{missing}")
    assert result.code == 2
    (line,) = result.err.strip().splitlines()
    assert f"{missing} cannot be read" in line
    (tmp_path / "t.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    result = cli("queue", texts, "--values", f"1.width=@{tmp_path / 't.csv'}:c")
    assert result.code == 2
    assert "has no column 'c' (it has 'a', 'b')" in result.err
    with Ledger(home) as ledger:
        assert ledger.jobs() == []


def test_a_zipped_pair_makes_n_jobs(cli: Cli, texts: str, home: Path) -> None:
    ids = queued_of(
        cli,
        texts,
        "--grid",
        "4.value=a fox,an owl,a hare",
        "--grid",
        "1.width=64,96,128",
        "--zip",
        "4.value,1.width",
    )
    assert [(p["4.value"], p["1.width"]) for p in params(home, ids)] == [
        ("a fox", 64),
        ("an owl", 96),
        ("a hare", 128),
    ]
    with Ledger(home) as ledger:
        assert ledger.batch(ledger.job(ids[0]).batch).spec["zips"] == [["4.value", "1.width"]]
    result = cli(
        "queue",
        texts,
        "--grid",
        "4.value=a,b",
        "--grid",
        "1.width=64,96,128",
        "--zip",
        "4.value,1.width",
    )
    assert result.code == 2
    assert "zipped axes need the same number of values: 4.value has 2, 1.width has 3" in result.err


def queued_of(cli: Cli, preset: str, *args: str) -> list[str]:
    result = cli("queue", preset, *args)
    assert result.code == 0, result.err
    return result.out.split()


def test_wildcards_in_set_resolve_by_seed_show_in_full_and_again_sends_them(
    cli: Cli, texts: str, home: Path
) -> None:
    long_tail = ", ".join(f"detail {i}" for i in range(40))  # past any column's width
    template = f"a {{red|green|blue|amber|violet}} fox, {long_tail}"
    ids = queued_of(cli, texts, "--count", "5", "--set", f"4.value={template}")
    resolved = [p["4.value"] for p in params(home, ids)]
    assert resolved == [expand_random(template, seed, salt="4.value") for seed in range(5)]
    for job_id, text in zip(ids, resolved, strict=True):
        shown = cli("show", job_id)
        assert f"4.value={text}" in shown.out
        assert cli("show", job_id, "--json").json()["params"]["4.value"] == text
        again = cli("again", job_id)
        assert again.code == 0, again.err
        (new,) = again.out.split()
        assert params(home, [new]) == params(home, [job_id])


def test_wildcards_all_makes_one_job_per_text_and_a_bomb_is_refused(
    cli: Cli, texts: str, home: Path
) -> None:
    ids = queued_of(
        cli, texts, "--set", "4.value=a {fox|owl} at {dawn|dusk}", "--wildcards", "4.value=all"
    )
    assert [p["4.value"] for p in params(home, ids)] == [
        "a fox at dawn",
        "a fox at dusk",
        "a owl at dawn",
        "a owl at dusk",
    ]
    bomb = "{a|b|c|d|e|f|g|h|i|j}" * 5
    result = cli("queue", texts, "--set", f"4.value={bomb}", "--wildcards", "4.value=all")
    assert result.code == 2
    assert result.err.strip() == (
        "batchline: node 4, input 'value': its wildcards expand to 100,000 texts, more than 10,000"
    )
    with Ledger(home) as ledger:
        assert len(ledger.jobs()) == 4


def test_a_dry_run_says_the_count_and_the_first_texts_and_queues_nothing(
    cli: Cli, texts: str, home: Path
) -> None:
    args = ("--count", "3", "--set", "4.value=a {fox|owl} at {dawn|dusk}", "--dry-run")
    result = cli("queue", texts, *args, "--wildcards", "4.value=all")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0] == "12 jobs (nothing queued), the first:"
    assert lines[1:] == [
        "  2.seed=0 4.value=a fox at dawn",
        "  2.seed=0 4.value=a fox at dusk",
        "  2.seed=0 4.value=a owl at dawn",
        "  2.seed=0 4.value=a owl at dusk",
        "  2.seed=1 4.value=a fox at dawn",
    ]
    listed = cli("queue", texts, *args, "--json").json()
    assert listed["jobs"] == 3
    assert [job["4.value"] for job in listed["examples"]] == [
        expand_random("a {fox|owl} at {dawn|dusk}", seed, salt="4.value") for seed in range(3)
    ]
    with Ledger(home) as ledger:
        assert ledger.jobs() == []
        assert ledger.batches() == []


def test_a_webhook_and_no_notify_are_kept_with_the_batch(cli: Cli, noise: str, home: Path) -> None:
    (job,) = queued(cli, "--webhook", "https://hooks.slack.test/x", "--webhook-template", "slack")
    (quiet,) = queued(cli, "--no-notify")
    with Ledger(home) as ledger:
        hooked = ledger.notices.get(ledger.job(job).batch).choice
        silent = ledger.notices.get(ledger.job(quiet).batch).choice
    assert hooked == NoticeChoice(True, "https://hooks.slack.test/x", "slack")
    assert silent == NoticeChoice(desktop=False)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--webhook", "file:///etc/passwd"], "--webhook: the webhook address must start with"),
        (["--webhook-template", "discord"], "--webhook-template goes with --webhook URL"),
    ],
)
def test_a_bad_webhook_is_refused_before_anything_is_queued(
    cli: Cli, noise: str, home: Path, args: list[str], said: str
) -> None:
    result = cli("queue", "noise", *args)
    assert result.code != 0
    assert said in result.err
    with Ledger(home) as ledger:
        assert ledger.batches() == []
