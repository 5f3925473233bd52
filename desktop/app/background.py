"""The background controller: `batchline serve`, started by the app so that work goes on when
the window closes, and stopped by it when the artist quits Batchline completely.

No Qt here. The process is detached from the app (its own session), writes its output to
``controller.log`` in the data folder, and is found again by any later window through the
ledger's lease and controller row.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.errors import BatchlineError

if TYPE_CHECKING:
    from pathlib import Path

    from core.ledger import Ledger

log = logging.getLogger(__name__)
LOG_NAME = "controller.log"
LOG_LIMIT = 5 * 1024 * 1024  # a log past this size starts afresh when the next one starts
READY_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 15.0
_POLL_S = 0.05


@dataclass(frozen=True)
class ServeOptions:
    """How the app starts its background controller."""

    data_dir: Path  # the artist's data folder (the demo's ledger is a folder inside it)
    demo: bool = False
    server: str | None = None  # --server given to the app
    demo_job_seconds: float = 4.0
    verbose: bool = False

    def command(self) -> list[str]:
        """The `batchline serve` command line, for this installation (a bundle runs itself)."""
        if getattr(sys, "frozen", False):
            program = [sys.executable]
        else:
            program = [sys.executable, "-m", "cli"]
        line = [*program, "--data-dir", str(self.data_dir)]
        if self.server:
            line += ["--server", self.server]
        if self.verbose:
            line.append("--verbose")
        line += ["serve", "--started-by", "app"]
        if self.demo:
            line += ["--demo", "--demo-job-seconds", f"{self.demo_job_seconds:g}"]
        return line


def start_process(options: ServeOptions, log_folder: Path) -> subprocess.Popen[bytes]:
    """Start `batchline serve` detached from this process, its output in ``controller.log``.

    A thread waits for it, so that it leaves no zombie if it ends while the app runs; if the
    app ends first, it simply goes on.
    """
    path = log_folder / LOG_NAME
    with contextlib.suppress(OSError):
        if path.stat().st_size > LOG_LIMIT:
            path.unlink()
    process = _spawn(options.command(), path)
    threading.Thread(target=process.wait, name=f"waits for pid {process.pid}", daemon=True).start()
    return process


def _spawn(command: list[str], path: Path) -> subprocess.Popen[bytes]:
    with path.open("ab") as output:
        if sys.platform == "win32":
            return subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                creationflags=subprocess.CREATE_NEW_PROCESS_GROUP | subprocess.DETACHED_PROCESS,
            )
        return subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


async def wait_until_ready(ledger: Ledger, process: subprocess.Popen[bytes]) -> None:
    """Wait until ``process`` is the ledger's controller, or another one is (it lost the race).

    Raises:
        BatchlineError: it ended without a controller running, or was not ready in time; the
            reason is the last line it wrote.
    """
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        row = ledger.controller_runs.current()
        if row is not None and row.pid == process.pid and row.stopped_at is None:
            return
        if process.poll() is not None:
            if ledger.lease.taken():
                return
            why = _last_line(ledger.folder / LOG_NAME)
            raise BatchlineError(f"the background controller did not start: {why}")
        await asyncio.sleep(_POLL_S)
    why = _last_line(ledger.folder / LOG_NAME)
    raise BatchlineError(
        f"the background controller was not ready after {READY_TIMEOUT_S:g} s: {why}"
    )


async def stop_controller(ledger: Ledger, run_id: str, pid: int) -> bool:
    """Ask the controller ``run_id`` to stop, through the ledger, and wait until it let go of
    the lease; after ``STOP_TIMEOUT_S`` it is sent SIGTERM. Whether it stopped."""
    ledger.controller_runs.request_stop(run_id)
    if await _lease_freed(ledger):
        return True
    log.warning("the background controller (pid %d) did not stop when asked: terminating", pid)
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGTERM)
    return await _lease_freed(ledger)


async def _lease_freed(ledger: Ledger) -> bool:
    deadline = time.monotonic() + STOP_TIMEOUT_S
    while ledger.lease.taken():
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(_POLL_S)
    return True


def _last_line(path: Path) -> str:
    """The last line the background controller wrote (its reason for stopping)."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    except OSError:
        return f"see {path}"
    return lines[-1] if lines else f"no output in {path}"
