"""Benchmark: creating a 10,000-job batch through the ledger vs raw sqlite3 executemany.

Prints both timings (best of several runs, each into a fresh database with the same durability
settings: WAL, synchronous=FULL, one transaction) and, on the last line, their ratio.
Run: `make bench` or `.venv/bin/python bench/ledger.py [JOBS]`.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from core.ledger import Ledger, NewJob, PresetContent

RUNS = 5
WORKFLOW = {"3": {"class_type": "KSampler", "inputs": {"seed": 0, "steps": 20}}}


def _params(count: int) -> list[dict[str, int]]:
    return [{"3.seed": 1000 + i} for i in range(count)]


def time_ledger(count: int) -> float:
    with tempfile.TemporaryDirectory() as folder, Ledger(Path(folder)) as ledger:
        ledger.presets.add("bench", PresetContent("hash-bench", WORKFLOW))
        jobs = [NewJob(params) for params in _params(count)]
        start = time.perf_counter()
        ledger.create_batch("bench", jobs, requester="bench")
        return time.perf_counter() - start


BASELINE_SCHEMA = """
CREATE TABLE job (id TEXT PRIMARY KEY, batch_id TEXT, requester TEXT, params_json TEXT,
  priority INTEGER, state TEXT, reason TEXT, warning TEXT, attempt INTEGER,
  auto_attempts INTEGER, created_at REAL, updated_at REAL, seq INTEGER, started_at REAL,
  finished_at REAL);
CREATE INDEX job_batch_id ON job (batch_id);
CREATE INDEX job_requester ON job (requester);
CREATE INDEX job_state ON job (state);
CREATE INDEX job_seq ON job (seq);
CREATE INDEX job_pending_line ON job (state, requester, priority DESC);
"""


def time_sqlite(count: int) -> float:
    with tempfile.TemporaryDirectory() as folder:
        conn = sqlite3.connect(Path(folder) / "baseline.sqlite3", isolation_level=None)
        conn.execute("PRAGMA journal_mode=wal")
        conn.execute("PRAGMA synchronous=full")
        conn.executescript(BASELINE_SCHEMA)
        params = _params(count)
        start = time.perf_counter()
        now = time.time()
        rows = [
            (
                f"job_20260101_{i + 1:04d}",
                "batch_1",
                "bench",
                json.dumps(p, sort_keys=True),
                0,
                "pending",
                None,
                None,
                1,
                1,
                now,
                now,
                i + 1,
            )
            for i, p in enumerate(params)
        ]
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany("INSERT INTO job VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,NULL,NULL)", rows)
        conn.execute("COMMIT")
        elapsed = time.perf_counter() - start
        conn.close()
        return elapsed


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    ledger_s = min(time_ledger(count) for _ in range(RUNS))
    sqlite_s = min(time_sqlite(count) for _ in range(RUNS))
    print(f"jobs: {count}, best of {RUNS} runs")
    print(f"ledger create_batch: {ledger_s * 1000:.1f} ms")
    print(f"sqlite3 executemany: {sqlite_s * 1000:.1f} ms")
    print(f"ratio ledger/sqlite3: {ledger_s / sqlite_s:.2f}")


if __name__ == "__main__":
    main()
