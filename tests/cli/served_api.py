"""`batchline serve` with its HTTP API, in a child process on loopback, for the API's tests."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from core.job_state import JobState
from tests.cli.conftest import REPO, Cli


@dataclass
class Served:
    """A served API: its address, the data folder, and a client per token name."""

    url: str
    home: Path
    tokens: dict[str, str]
    log: Path

    def client(self, name: str | None = None, **options: Any) -> httpx.Client:
        headers = {"Authorization": f"Bearer {self.tokens[name]}"} if name else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30, **options)

    def wait_for(self, name: str, job_ids: list[str], timeout: float = 60) -> list[dict[str, Any]]:
        """The jobs, once all have finished (read through the API)."""
        finished = {JobState.succeeded.value, JobState.failed.value, JobState.cancelled.value}
        deadline = time.monotonic() + timeout
        with self.client(name) as http:
            while True:
                jobs = [http.get(f"/v1/jobs/{job_id}").json() for job_id in job_ids]
                if all(job["state"] in finished for job in jobs):
                    return jobs
                if time.monotonic() > deadline:
                    raise AssertionError(f"jobs not finished: {[j['state'] for j in jobs]}")
                time.sleep(0.1)


@contextlib.contextmanager
def serve(cli: Cli, sim_url: str, *options: str, tokens: tuple[str, ...] = ()) -> Iterator[Served]:
    """`batchline serve --listen 127.0.0.1:0` for ``cli``'s data folder, with a token for each
    name in ``tokens``; stopped with SIGTERM afterwards, which must end it cleanly."""
    made = {}
    for name in tokens:
        result = cli("tokens", "create", name)
        assert result.code == 0, result.err
        made[name] = result.out.strip()
    with serving(cli.home, sim_url, *options, tokens=made) as served:
        yield served


@contextlib.contextmanager
def serving(home: Path, sim_url: str, *options: str, tokens: dict[str, str]) -> Iterator[Served]:
    """`batchline serve` for the data folder ``home`` whose ``tokens`` (name: token) exist."""
    log = home.parent / "serve.out"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "cli.main", "--data-dir", str(home), "--server", sim_url]
    command += ["serve", "--listen", "127.0.0.1:0", "--poll-interval", "0.05", *options]
    with log.open("w") as out:
        process = subprocess.Popen(
            command, cwd=REPO, env=env, text=True, stdout=out, stderr=subprocess.PIPE
        )
    try:
        url = _listening(log, process)
        yield Served(url, home, tokens, log)
    finally:
        process.send_signal(signal.SIGTERM)
        _out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert "Traceback" not in err, err


def _listening(log: Path, process: subprocess.Popen[str]) -> str:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for line in log.read_text().splitlines():
            if line.startswith("listening on "):
                return line.removeprefix("listening on ")
        if process.poll() is not None:
            raise AssertionError(f"serve ended: {process.stderr.read() if process.stderr else ''}")
        time.sleep(0.05)
    raise AssertionError("serve never said where it listens")
