"""Server and file text reaching the terminal: control characters are shown, never obeyed."""

from __future__ import annotations

import json
from pathlib import Path

from cli.terminal import escape_controls
from core.job_state import Reason
from core.ledger import Ledger
from core.ledger.attempt_error import AttemptError, ErrorKind
from tests.cli.conftest import Cli
from tests.core.hostile import HostileServer, answer_json


def test_control_characters_are_escaped_but_lines_and_tabs_kept() -> None:
    assert escape_controls("red \x1b[31mtext\x1b[0m") == "red \\x1b[31mtext\\x1b[0m"
    assert escape_controls("a\rb\x00c\x7f\x9b") == "a\\rb\\x00c\\x7f\\x9b"
    assert escape_controls("two\nlines\tand a tab") == "two\nlines\tand a tab"
    assert escape_controls("lone \ud800 surrogate") == "lone \\ud800 surrogate"


def test_a_servers_error_message_cannot_drive_the_terminal(
    cli: Cli, noise: str, home: Path
) -> None:
    (job_id,) = cli("queue", "noise").out.split()
    with Ledger(home) as ledger:
        ledger.submit_attempt(job_id, "p", "http://127.0.0.1:8188", "wf")
        hostile = AttemptError(
            ErrorKind.execution, "\x1b[2J\x1b[31mall your\r base", node_type="Evil\x1b]0;title\x07"
        )
        ledger.observe_failed("p", Reason.execution_error, hostile)

    shown = cli("show", job_id).out
    assert not {"\x1b", "\r", "\x07"} & set(shown)
    assert "\\x1b[2J\\x1b[31mall your\\r base" in shown
    listed = json.loads(cli("jobs", "--json").out)  # JSON escapes them itself
    assert listed[0]["id"] == job_id


def test_a_preset_name_cannot_drive_the_terminal(cli: Cli, noise_file: Path) -> None:
    """Refused when written (core/names.py); one an older version stored is shown escaped."""
    refused = cli("preset", "add", str(noise_file), "--name", "red\x1b[31m")
    assert refused.code == 2
    assert "\x1b" not in refused.err
    assert "cannot hold a control character (U+001B)" in refused.err
    assert cli("preset", "add", str(noise_file), "--name", "red").code == 0
    with Ledger(cli.home) as ledger, ledger.handle.tx():
        ledger.handle.database.execute_sql(
            "UPDATE preset SET name = ? WHERE name = ?", ("red\x1b[31m", "red")
        )
    listed = cli("preset", "list").out
    assert "\x1b" not in listed
    assert "red\\x1b[31m" in listed


def test_a_name_that_is_not_utf8_is_one_line(cli: Cli, noise: str) -> None:
    not_text = b"job\xff".decode("utf-8", "surrogateescape")  # as the OS hands such bytes over
    for args in (("show", not_text), ("queue", not_text), ("cancel", not_text)):
        result = cli(*args)
        assert result.code == 2, args
        assert result.err.count("\n") == 1, args
        assert "'job\\udcff'" in result.err, args


def test_a_hostile_servers_version_and_devices_cannot_drive_the_terminal(
    cli: Cli, hostile_thread: HostileServer, data_dir: Path
) -> None:
    recorded = json.loads((data_dir / "recordings" / "system_stats.json").read_text())
    stats = recorded["response"]
    stats["system"]["comfyui_version"] = "0.3.64\x1b[2J\x1b[H"
    for device in stats["devices"]:
        device["name"] = "GPU\x1b]0;pwned\x07"
    hostile_thread.behaviours["GET /system_stats"] = answer_json(stats)
    hostile_thread.behaviours["GET /queue"] = answer_json(
        {"queue_running": [], "queue_pending": []}
    )
    cli.server = hostile_thread.url
    result = cli("servers")
    shown = result.out + result.err
    assert not {"\x1b", "\x07"} & set(shown)
    assert "0.3.64\\x1b[2J\\x1b[H" in shown
