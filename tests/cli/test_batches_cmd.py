"""`batchline batches`: every batch by its title, its id beside it; `name` and `show` say the
same title."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.job_state import Reason
from core.ledger import Ledger
from tests.cli.test_queue_cmd import queued

if TYPE_CHECKING:
    from pathlib import Path

    from tests.cli.conftest import Cli


def batch_of(home: Path, job_id: str) -> str:
    with Ledger(home) as ledger:
        return ledger.job(job_id).batch


def test_batches_are_listed_by_title_told_apart_with_their_ids(
    cli: Cli, noise: str, home: Path
) -> None:
    first = batch_of(home, queued(cli, "--count", "3")[0])
    second = batch_of(home, queued(cli, "--count", "3")[0])
    grid = batch_of(
        home, queued(cli, "--grid", "2.strength=0.25,0.75", "--grid", "1.width=64,96")[0]
    )
    named = batch_of(home, queued(cli, "--name", "Dusk study")[0])
    with Ledger(home) as ledger:
        job = ledger.jobs(batch=first)[0]
        ledger.submit_attempt(job.id, "p1", "http://x", "wf")
        ledger.observe_failed("p1", Reason.oom)
    lines = cli("batches").out.splitlines()
    assert lines[0].split() == ["TITLE", "BATCH", "JOBS", "MADE"]
    rows = {line.split("  ")[0].strip(): line for line in lines[1:]}
    assert set(rows) == {
        "noise · 3 seeds",
        "noise · 3 seeds #2",
        "noise · strength × width",
        "Dusk study",
    }
    assert first in rows["noise · 3 seeds"]
    assert "0/3 done, 1 failed" in rows["noise · 3 seeds"]
    assert second in rows["noise · 3 seeds #2"]
    assert grid in rows["noise · strength × width"]
    assert named in rows["Dusk study"]
    assert lines[1].startswith("noise · 3 seeds "), "oldest first, the title before the id"


def test_batches_as_json_give_the_title_and_the_stored_name(cli: Cli, noise: str) -> None:
    queued(cli, "--count", "2")
    queued(cli, "--count", "2")
    listed = cli("batches", "--json").json()
    assert [b["title"] for b in listed] == ["noise · 2 seeds", "noise · 2 seeds #2"]
    assert [b["name"] for b in listed] == ["noise · 2 seeds", "noise · 2 seeds"]
    assert listed[0]["jobs"]["pending"] == 2
    assert listed[0]["preset"] == "noise"


def test_no_batches_says_how_to_make_one(cli: Cli) -> None:
    assert "batchline queue PRESET" in cli("batches").out


def test_a_name_taken_off_goes_back_to_the_title(cli: Cli, noise: str, home: Path) -> None:
    (job_id,) = queued(cli, "--count", "1", "--seed-start", "42")
    batch = batch_of(home, job_id)
    assert cli("name", batch, "Fox study").out.strip() == f"{batch}: Fox study"
    assert f"batch Fox study ({batch}), preset noise" in cli("show", job_id).out
    assert cli("name", batch).out.strip() == f"{batch}: noise · seed 42 (by what it varies)"
    with Ledger(home) as ledger:
        assert ledger.batch(batch).name is None
    assert f"batch noise · seed 42 ({batch}), preset noise" in cli("show", job_id).out
    assert cli("batches").out.splitlines()[1].startswith("noise · seed 42 ")


def test_a_long_title_is_cut_in_the_table_only(cli: Cli, noise: str, home: Path) -> None:
    (job_id,) = queued(cli, "--name", "a very long name " * 6)
    row = cli("batches").out.splitlines()[1]
    assert row.startswith("a very long name a very long name a very long n…  ")
    assert cli("batches", "--json").json()[0]["title"] == ("a very long name " * 6).strip()
    assert batch_of(home, job_id) in row
