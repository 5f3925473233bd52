"""CLI test helpers: run `batchline` in-process against a ledger folder under tmp_path."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from cli.main import main
from core.ledger import Ledger
from simulator import SimulatorConfig
from simulator.thread import SimulatorThread
from tests.core.conftest import hostile, make_simulator, simulator
from tests.core.helpers import NOISE_WORKFLOW
from tests.core.hostile import HostileServer, HostileThread

# The simulator fixtures of the core tests, shared here (conftest files do not reach siblings).
__all__ = ["hostile", "make_simulator", "simulator"]

REPO = Path(__file__).resolve().parents[2]


# Nothing listens here: `preset add` falls back to the bundled catalogue at once.
NO_SERVER = "http://127.0.0.1:9"


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


class Cli:
    """``cli("queue", "noise", "--count", "2")`` runs main() with this test's --data-dir."""

    def __init__(self, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.home, self._capsys = home, capsys
        self.server = NO_SERVER

    def __call__(self, *args: str) -> Result:
        self._capsys.readouterr()
        try:
            code = main(["--data-dir", str(self.home), "--server", self.server, *args])
        except SystemExit as exc:  # argparse's usage errors
            code = int(exc.code or 0)
        out, err = self._capsys.readouterr()
        return Result(code, out, err)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A data folder holding an empty ledger (made as on a first start, which says so)."""
    folder = tmp_path / "home"
    Ledger(folder).close()
    return folder


@pytest.fixture
def cli(home: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(home, capsys)


@pytest.fixture
def noise_file(tmp_path: Path) -> Path:
    path = tmp_path / "noise.json"
    path.write_text(json.dumps(NOISE_WORKFLOW), encoding="utf-8")
    return path


@pytest.fixture
def noise(cli: Cli, noise_file: Path) -> str:
    """The noise workflow stored as preset ``noise``."""
    assert cli("preset", "add", str(noise_file)).code == 0
    return "noise"


@pytest.fixture
def sim_thread(tmp_path: Path) -> Iterator[SimulatorThread]:
    """A simulator in its own thread (for commands that run their own event loop)."""
    thread = SimulatorThread(
        SimulatorConfig(job_seconds=0.05, cpu_time_scale=0.0, output_dir=tmp_path / "sim-out")
    )
    thread.start()
    yield thread
    thread.stop()


@pytest.fixture
def secured(tmp_path: Path) -> Iterator[SimulatorThread]:
    """A simulator that requires the bearer token "s3cret"."""
    config = SimulatorConfig(
        token="s3cret", job_seconds=0.05, cpu_time_scale=0.0, output_dir=tmp_path / "sim"
    )
    thread = SimulatorThread(config)
    thread.start()
    yield thread
    thread.stop()


def batchline(home: Path, *args: str, **popen: Any) -> subprocess.Popen[str]:
    """`batchline --data-dir HOME ARGS...` in a child process (pipes for stdout and stderr),
    which SIGINT stops as Ctrl-C does at a terminal however pytest was started."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "cli.main", "--data-dir", str(home), *args]
    with sigint_not_ignored():
        return subprocess.Popen(
            command,
            cwd=REPO,
            env=env,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            **popen,
        )


@contextlib.contextmanager
def sigint_not_ignored() -> Iterator[None]:
    """While inside, SIGINT is caught in this process if it was ignored.

    A shell without job control starts ``cmd &`` with SIGINT ignored; an ignored signal stays
    ignored across exec (a caught one goes back to its default), and Python then leaves it
    ignored: a `batchline run` started by pytest started that way would never see SIGINT.
    """
    if signal.getsignal(signal.SIGINT) != signal.SIG_IGN:
        yield
        return
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.fixture
def hostile_thread() -> Iterator[HostileServer]:
    """A hostile server on its own thread (a command runs its own event loop)."""
    runner = HostileThread(HostileServer())
    runner.start()
    yield runner.server
    runner.stop()


def run_until_idle(cli: Cli, sim: SimulatorThread) -> str:
    cli.server = sim.url
    result = cli("run", "--until-idle", "--poll-interval", "0.05", "--max-queued", "2")
    assert result.code == 0, result.err
    return result.out


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


@pytest.fixture
def outputs(home: Path, tmp_path: Path) -> Path:
    with Ledger(home) as ledger:
        ledger.settings.set("output_dir", str(tmp_path / "out"))
    return tmp_path / "out"
