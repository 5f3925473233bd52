"""Ledger fixtures: a real SQLite ledger in a temporary folder."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from core.ledger import Ledger, NewJob, PresetContent
from core.paths import ledger_path

WORKFLOW = {
    "1": {
        "class_type": "EmptyImage",
        "inputs": {"width": 64, "height": 64, "batch_size": 1, "color": 0},
    },
    "2": {"class_type": "SaveImage", "inputs": {"images": ["1", 0], "filename_prefix": "t"}},
}


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[Ledger]:
    with Ledger(tmp_path / "home") as opened:
        opened.presets.add("demo", PresetContent("hash-demo", WORKFLOW))
        yield opened


@contextmanager
def traced(ledger: Ledger) -> Iterator[list[str]]:
    """The statements ``ledger``'s connection runs meanwhile (SQLite's own statement trace)."""
    statements: list[str] = []
    connection = ledger.handle.database.connection()
    connection.set_trace_callback(statements.append)
    try:
        yield statements
    finally:
        connection.set_trace_callback(None)


def make_jobs(ledger: Ledger, count: int, requester: str = "alice") -> list[str]:
    """Create a batch of ``count`` pending jobs of the demo preset; returns their ids."""
    jobs = [NewJob({"1.color": i}) for i in range(count)]
    return ledger.create_batch("demo", jobs, requester=requester)[1]


# What schema 12 added (the picture search's index and the saved searches), taken away to make
# an older ledger.
UNDO_12 = """
    DROP TRIGGER picture_mark_set; DROP TRIGGER picture_mark_cleared;
    DROP TRIGGER picture_batch_named; DROP TRIGGER picture_job_gone;
    DROP TRIGGER picture_entry_gone; DROP TABLE picture_text; DROP TABLE picture_file;
    DROP TABLE picture_entry; DROP TABLE saved_search;
"""

SCHEMA_1_REQUESTS = """
    CREATE TABLE request (
        id INTEGER NOT NULL PRIMARY KEY, kind VARCHAR(255) NOT NULL,
        target VARCHAR(255) NOT NULL, created_at REAL NOT NULL, done_at REAL, outcome TEXT
    )
"""


def make_schema_1_ledger(folder: Path, jobs: int) -> list[str]:
    """A ledger as the first Batchline wrote it (schema 1), holding ``jobs`` pending jobs and a
    request (a table schema 3 dropped) to cancel the first."""
    with Ledger(folder) as ledger:
        ledger.presets.add("demo", PresetContent("hash-demo", WORKFLOW))
        ids = make_jobs(ledger, jobs)
    conn = sqlite3.connect(ledger_path(folder))
    try:
        conn.executescript(UNDO_12)
        conn.execute("DROP TABLE batch_notice")  # schema 13
        conn.execute("DROP TABLE preset_version")  # schema 14
        conn.execute("DROP INDEX attempt_result")
        conn.execute("DROP INDEX job_pending_line")
        conn.execute("ALTER TABLE job DROP COLUMN started_at")
        conn.execute("ALTER TABLE job DROP COLUMN finished_at")
        conn.execute(SCHEMA_1_REQUESTS)
        conn.execute(
            "INSERT INTO request (kind, target, created_at) VALUES ('cancel', ?, 0)", ids[:1]
        )
        conn.execute("PRAGMA user_version = 1")
        conn.commit()
    finally:
        conn.close()
    return ids


PRELUDE = """
import sys, time
from pathlib import Path
from core.ledger import Ledger, NewJob, PresetContent
home = Path(sys.argv[1])
"""


def spawn(script: str, home: Path, *args: str) -> subprocess.Popen[str]:
    code = PRELUDE + textwrap.dedent(script)
    return subprocess.Popen(
        [sys.executable, "-c", code, str(home), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_line(proc: subprocess.Popen[str], expected: str) -> None:
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    assert line == expected, (
        f"child said {line!r}; stderr: {proc.stderr.read() if proc.stderr else ''}"
    )
