"""Every option is parsed strictly: ASCII digits, finite numbers within their range (a priority
the ledger cannot store is refused, the extreme ones are stored), names by the one rule; each
refusal one line naming the option or the rule, never a traceback."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from cli.arg_types import axis_inputs, file_axis, wildcard_mode
from core.batch import GridAxis
from core.ledger import Ledger
from tests.cli.conftest import Cli


@pytest.mark.parametrize("priority", [str(2**63), str(-(2**63) - 1), str(10**30)])
def test_a_priority_the_ledger_cannot_store_is_refused(cli: Cli, noise: str, priority: str) -> None:
    result = cli("queue", "noise", f"--priority={priority}")
    assert (result.code, result.err) == (
        2,
        f"batchline: priority must be from {-(2**63)} to {2**63 - 1}, not {priority}\n",
    )
    assert cli("jobs", "--json").json() == []


def test_the_extreme_priorities_are_stored(cli: Cli, noise: str) -> None:
    for priority in (2**63 - 1, -(2**63)):
        assert cli("queue", "noise", f"--priority={priority}").code == 0
    assert [job["priority"] for job in cli("jobs", "--json").json()] == [2**63 - 1, -(2**63)]


def one_line_refusal(cli: Cli, *args: str) -> str:
    result = cli(*args)
    assert result.code == 2, result
    assert len(result.err.strip().splitlines()) == 1, result.err
    assert result.err.startswith("batchline: ")
    return result.err.strip()


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--host", "0.0.0.0"], "--host: the simulator only listens on loopback, not '0.0.0.0'"),
        (["--error-rate", "2"], "argument --error-rate: '2' is not a number from 0 to 1"),
        (["--drop-rate", "-0.1"], "argument --drop-rate: '-0.1' is not a number from 0 to 1"),
        (["--job-seconds", "-1"], "argument --job-seconds: '-1' is not a number from 0"),
        (["--job-seconds", "nan"], "argument --job-seconds: 'nan' is not a number from 0"),
        (["--port", "70000"], "argument --port: '70000' is not a whole number from 0 to 65535"),
        (["--port", "８１８８"], "argument --port: '８１８８' is not a whole number"),
        (["--fail-oom", "-1"], "argument --fail-oom: '-1' is not a whole number from 0"),
    ],
)
def test_simulate_refuses_a_bad_option_in_one_line(cli: Cli, args: list[str], said: str) -> None:
    assert said in one_line_refusal(cli, "simulate", *args)


@pytest.mark.parametrize(
    "args",
    [
        ["queue", "noise", "--count", "²"],
        ["queue", "noise", "--count", "١"],
        ["queue", "noise", "--seed-start", "1_000"],
        ["queue", "noise", "--priority", "1.5"],
        ["run", "--until-idle", "--max-queued", "²"],
        ["run", "--until-idle", "--poll-interval", "١"],
        ["serve", "--max-backlog", "1e3"],
    ],
)
def test_a_number_not_in_ascii_digits_is_refused(cli: Cli, noise: str, args: list[str]) -> None:
    said = one_line_refusal(cli, *args)
    option, value = args[-2:]
    assert f"argument {option}: {value!r} is not a" in said
    with Ledger(cli.home) as ledger:
        assert ledger.jobs() == []


@pytest.mark.parametrize(
    ("name", "rule"),
    [("a\u202eb", "bidirectional control"), ("a/b", "path separator"), ("..", "cannot be called")],
)
def test_a_batch_or_preset_name_breaking_the_rule_is_one_line(
    cli: Cli, noise: str, noise_file: object, name: str, rule: str
) -> None:
    assert rule in one_line_refusal(cli, "queue", "noise", "--name", name)
    assert rule in one_line_refusal(cli, "preset", "add", str(noise_file), "--name", name)
    with Ledger(cli.home) as ledger:
        assert ledger.jobs() == []
        assert [preset.name for preset in ledger.presets.all()] == ["noise"]


def test_a_file_axis_reads_a_list_a_csv_column_by_name_or_index_or_typed_lines(
    tmp_path: Path,
) -> None:
    (tmp_path / "list.txt").write_text("one\n\ntwo\n", encoding="utf-8")
    (tmp_path / "t.csv").write_text("a,b\n1,x\n2,y\n", encoding="utf-8")
    assert file_axis(f"4.value=@{tmp_path / 'list.txt'}") == GridAxis("4.value", ("one", "two"))
    assert file_axis(f"4.value=@{tmp_path / 't.csv'}:b") == GridAxis("4.value", ("x", "y"))
    assert file_axis(f"4.value=@{tmp_path / 't.csv'}:0") == GridAxis("4.value", ("1", "2"))
    assert file_axis(f"4.value=@{tmp_path / 't.csv'}") == GridAxis("4.value", ("1", "2"))
    assert file_axis("4.value=a, b\nc") == GridAxis("4.value", ("a, b", "c"))
    with pytest.raises(argparse.ArgumentTypeError, match=r"list\.txt:b cannot be read"):
        file_axis(f"4.value=@{tmp_path / 'list.txt'}:b")  # not a csv: the whole is a path
    with pytest.raises(argparse.ArgumentTypeError, match=r"the values of 4.value holds no values"):
        file_axis("4.value=\n\n")


def test_zip_groups_and_wildcard_modes_are_parsed_strictly() -> None:
    assert axis_inputs("3.sampler_name, 3.scheduler") == ("3.sampler_name", "3.scheduler")
    assert wildcard_mode("6.text=all") == ("6.text", "all")
    for text in ("3.a", "3.a,b", "3.a,,3.b"):
        with pytest.raises(argparse.ArgumentTypeError, match=r"NODE\.INPUT,NODE\.INPUT"):
            axis_inputs(text)
    with pytest.raises(argparse.ArgumentTypeError, match="random or all"):
        wildcard_mode("6.text=every")
