"""The disk and the data folder: a full output folder, a data folder or ledger that cannot be
used, a damaged ledger, and who may read the ledger: one line each, the ledger untouched."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from cli import run_cmd
from core.ledger import Ledger
from core.paths import ledger_path
from simulator.thread import SimulatorThread
from tests.cli.conftest import Cli, Result
from tests.core.disks import fill, read_only, small_disk


def test_run_until_idle_gives_up_on_a_full_output_folder_and_the_next_run_finishes(
    cli: Cli,
    noise: str,
    home: Path,
    tmp_path: Path,
    sim_thread: SimulatorThread,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(run_cmd, "FULL_OUTPUT_PATIENCE_S", 1.0)
    with small_disk(tmp_path / "out", "256k") as out:
        with Ledger(home) as ledger:
            ledger.settings.set("output_dir", str(out))
        filler = fill(out)
        ids = cli("queue", "noise", "--count", "2").out.split()
        cli.server = sim_thread.url
        result = cli("run", "--until-idle", "--poll-interval", "0.05")
        assert "unreachable" not in result.err
        full = f"the output folder {out} is full: pictures wait on the server until there is room"
        assert_gave_up(result, out, full)
        jobs = cli("jobs", "--json").json()
        assert {job["state"] for job in jobs} <= {"queued", "running"}, "waiting, not failed"

        filler.unlink()
        result = cli("run", "--until-idle", "--poll-interval", "0.05")
        assert result.code == 0, result.err
        for job_id in ids:
            (path,) = cli("show", job_id, "--json").json()["outputs"]
            assert Path(path).is_file()
            assert Path(path).is_relative_to(out)


def test_an_output_folder_that_cannot_be_written_waits_like_a_full_one(
    cli: Cli,
    noise: str,
    home: Path,
    tmp_path: Path,
    sim_thread: SimulatorThread,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(run_cmd, "FULL_OUTPUT_PATIENCE_S", 1.0)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    out = blocker / "pictures"  # under a file: no folder can be made there
    with Ledger(home) as ledger:
        ledger.settings.set("output_dir", str(out))
    (job_id,) = cli("queue", "noise").out.split()
    cli.server = sim_thread.url
    result = cli("run", "--until-idle", "--poll-interval", "0.05")
    assert "NotADirectoryError" not in result.err
    assert_gave_up(result, out, f"the output folder {out} cannot be written (Not a directory: ")
    assert cli("show", job_id, "--json").json()["state"] in {"queued", "running"}

    blocker.unlink()  # the artist fixes the folder: the next run saves the picture
    result = cli("run", "--until-idle", "--poll-interval", "0.05")
    assert result.code == 0, result.err
    (path,) = cli("show", job_id, "--json").json()["outputs"]
    assert Path(path).is_file()


def assert_gave_up(result: Result, out: Path, said: str) -> None:
    """`run --until-idle` said once why the output folder took no picture, then gave up."""
    assert result.code == 1, result.err
    assert "Traceback" not in result.err
    assert result.err.count(said) == 1, result.err
    assert result.err.splitlines()[-1].startswith(
        f"batchline: the output folder {out} still cannot take pictures after 1 s"
    )


def one_line(result: Result, *, banner: bool = False) -> str:
    """The one stderr line of a refused command (exit 1; after `run`'s banner), never a
    traceback."""
    assert result.code == 1, result
    assert "Traceback" not in result.err
    lines = result.err.splitlines()
    if banner:
        assert lines[0].startswith("controller for ")
        lines = lines[1:]
    (line,) = lines
    return line


def test_a_data_folder_that_is_a_file_or_under_one_is_one_line(cli: Cli, tmp_path: Path) -> None:
    cli.home = home = tmp_path / "plain"
    home.write_text("mine")
    assert one_line(cli("jobs")) == f"batchline: the data folder {home} is a file, not a folder"
    cli.home = home / "sub"
    assert one_line(cli("jobs")) == (
        f"batchline: the data folder {home / 'sub'} cannot be created: part of its path is a file"
    )
    assert home.read_text() == "mine"


def test_an_empty_ledger_is_refused_never_replaced(cli: Cli, tmp_path: Path) -> None:
    cli.home = home = tmp_path / "fresh"
    home.mkdir()
    ledger_path(home).write_bytes(b"")  # truncated: its jobs are gone, but not silently
    for args in (["jobs"], ["queue", "noise"], ["run", "--until-idle"]):
        line = one_line(cli(*args))
        assert line.startswith(f"batchline: {ledger_path(home)}: the ledger is empty (0 bytes")
        assert ledger_path(home).stat().st_size == 0


def test_a_ledger_damaged_mid_file_is_one_line_and_left_as_it_is(
    cli: Cli, noise: str, home: Path, sim_thread: SimulatorThread
) -> None:
    cli("queue", "noise", "--count", "200")
    path = ledger_path(home)
    conn = sqlite3.connect(path)
    try:  # everything in the file (no WAL beside it); the job table's first page
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'job'").fetchone()
        (page,) = conn.execute("PRAGMA page_size").fetchone()
    finally:
        conn.close()
    data = path.read_bytes()
    start = (root - 1) * page  # the schema and the settings stay readable: it opens
    damaged = data[:start] + bytes([0xEE]) * page + data[start + page :]
    path.write_bytes(damaged)
    cli.server = sim_thread.url
    line = one_line(cli("run", "--until-idle"), banner=True)  # stops at the first damaged read
    assert line.startswith(f"batchline: cannot write the ledger {path} (database disk image is")
    assert path.read_bytes() == damaged
    for args in (["queue", "noise"], ["jobs"]):
        assert one_line(cli(*args)) == (
            f"batchline: ledger {path}: the file is damaged (database disk image is malformed); "
            "it is left as it is: restore it from a backup"
        )
        assert path.read_bytes() == damaged


def test_a_read_only_data_folder_or_ledger_is_one_line_and_left_as_it_is(
    cli: Cli, noise_file: Path, tmp_path: Path
) -> None:
    with small_disk(tmp_path / "ro") as disk:
        cli.home = disk / "home"
        assert cli("preset", "add", str(noise_file)).code == 0
        ledger = ledger_path(cli.home)
        before = ledger.read_bytes()
        read_only(disk)  # root cannot write here either
        line = one_line(cli("queue", "noise"))
        assert line.startswith(f"batchline: {ledger}: cannot open the ledger: the ")
        assert line.endswith(" is read-only")
        assert "not a Batchline ledger" not in line
        assert ledger.read_bytes() == before
        cli.home = disk
        assert one_line(cli("jobs")) == (
            f"batchline: {ledger_path(disk)}: cannot open the ledger: the folder {disk} is "
            "read-only"
        )
        cli.home = disk / "new"
        assert one_line(cli("jobs")) == (
            f"batchline: the data folder {disk / 'new'} cannot be created (Read-only file system)"
        )


def test_a_ledger_on_a_full_disk_is_one_line_and_left_as_it_is(
    cli: Cli, noise_file: Path, tmp_path: Path
) -> None:
    with small_disk(tmp_path / "full") as disk:
        cli.home = disk / "home"
        assert cli("preset", "add", str(noise_file)).code == 0
        ledger = ledger_path(cli.home)
        before = ledger.read_bytes()
        fill(disk)
        full = f"the disk holding {cli.home} is full"
        assert one_line(cli("queue", "noise", "--count", "50")) == (
            f"batchline: {ledger}: cannot open the ledger: {full}"
        )
        assert ledger.read_bytes() == before
        cli.home = disk / "new"  # a new ledger: not created at all, so the next try can
        assert one_line(cli("jobs")) == (
            f"batchline: {ledger_path(cli.home)}: cannot open the ledger: "
            f"the disk holding {cli.home} is full"
        )
        assert list(cli.home.iterdir()) == []


def test_a_write_to_a_ledger_whose_disk_filled_up_is_one_line(
    cli: Cli, noise_file: Path, tmp_path: Path
) -> None:
    with small_disk(tmp_path / "full") as disk:
        cli.home = disk / "home"
        assert cli("preset", "add", str(noise_file)).code == 0
        with Ledger(cli.home) as held:  # keeps the WAL and shared memory: the open succeeds
            jobs_before = held.count_by_state()
            fill(disk)
            line = one_line(cli("queue", "noise", "--count", "500"))
            assert line == (
                f"batchline: ledger {ledger_path(cli.home)}: the disk holding {cli.home} is full"
            )
            assert held.count_by_state() == jobs_before, "nothing half written"
