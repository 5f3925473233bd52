"""The command line's entry: it imports the desktop package as code, but not Qt (commands other
than `gui` start without loading it, and work where Qt's system libraries are missing); a data
folder or ledger that cannot be used (a file, damaged, read-only, on a full disk) is one line,
the ledger left as it is; tokens stay out of every log record."""

from __future__ import annotations

import json
import logging
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from core.comfy import RedactAuthorization
from core.ledger import Ledger
from core.paths import ledger_path
from simulator.thread import SimulatorThread
from tests.cli.conftest import REPO, Cli, batchline, one_line
from tests.core.disks import fill, read_only, small_disk


def test_a_data_folder_that_is_a_file_or_under_one_is_one_line(cli: Cli, tmp_path: Path) -> None:
    cli.home = home = tmp_path / "plain"
    home.write_text("mine")
    assert one_line(cli("jobs")) == f"batchline: the data folder {home} is a file, not a folder"
    cli.home = home / "sub"
    assert one_line(cli("jobs")) == (
        f"batchline: the data folder {home / 'sub'} cannot be created: part of its path is a file"
    )
    assert home.read_text() == "mine"


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


TOKEN = "s3cret"  # the token the `secured` simulator asks for


def test_a_verbose_run_logs_the_handshake_without_the_token(
    cli: Cli, noise: str, secured: SimulatorThread, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BATCHLINE_TOKEN", TOKEN)
    (job_id,) = cli("queue", "noise").out.split()
    args = ("-v", "--server", secured.url, "run", "--until-idle", "--poll-interval", "0.05")
    out, err = batchline(cli.home, *args).communicate(timeout=60)
    assert f"{job_id} succeeded" in out
    assert "Authorization: <redacted>" in err  # the WebSocket handshake, logged at DEBUG
    assert TOKEN not in out + err


def test_no_debug_record_of_a_run_holds_the_token(
    cli: Cli,
    noise: str,
    secured: SimulatorThread,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("BATCHLINE_TOKEN", TOKEN)
    cli("queue", "noise")
    cli.server = secured.url
    caplog.set_level(logging.DEBUG)  # every logger, seen by a handler without any filter
    result = cli("-v", "run", "--until-idle", "--poll-interval", "0.05")
    assert result.code == 0, result.err
    messages = [record.getMessage() for record in caplog.records]
    assert any("Authorization: <redacted>" in message for message in messages)
    assert not [message for message in messages if TOKEN in message]


@pytest.mark.parametrize(
    ("message", "args", "redacted"),
    [
        ("> %s: %s", ("Authorization", "Bearer tok"), "> Authorization: <redacted>"),
        (
            "headers %r",
            ({"authorization": "Basic dTpw", "a": "b"},),
            "headers {'authorization': '<redacted>', 'a': 'b'}",
        ),
        ("%r", ([(b"Authorization", b"Bearer tok")],), "[(b'Authorization', b'<redacted>')]"),
        ("authorization=Bearer tok", None, "authorization=<redacted>"),
        ("queue answered 200", None, "queue answered 200"),
    ],
)
def test_authorization_values_are_blanked_in_log_records(
    message: str, args: tuple[object, ...] | None, redacted: str
) -> None:
    record = logging.LogRecord("x", logging.DEBUG, __file__, 1, message, args, None)
    assert RedactAuthorization().filter(record)
    assert record.getMessage() == redacted


CHECK = """
import json, sys
from cli.main import build_parser
build_parser().parse_args(["queue", "noise"])
qt = sorted(m for m in sys.modules if m.split(".")[0] in ("PySide6", "shiboken6", "qasync"))
print(json.dumps({"qt": qt, "window": "desktop.app.app" in sys.modules}))
"""


def test_the_command_line_loads_no_qt_until_the_window_opens() -> None:
    result = subprocess.run(
        [sys.executable, "-c", CHECK], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert json.loads(result.stdout) == {"qt": [], "window": True}
