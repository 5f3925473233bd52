"""`batchline serve`: the long-running controller of a data folder."""

from __future__ import annotations

import signal
import time
from pathlib import Path

from core.job_state import JobState
from core.ledger import Ledger
from core.simulator.thread import SimulatorThread
from tests.cli.conftest import Cli, batchline


def test_serve_says_ready_works_refuses_a_second_and_stops_on_sigterm(
    cli: Cli, home: Path, noise: str, sim_thread: SimulatorThread
) -> None:
    ids = cli("queue", "noise", "--count", "2").out.split()
    server = batchline(home, "--server", sim_thread.url, "serve", "--poll-interval", "0.05")
    try:
        assert server.stdout is not None
        ready = server.stdout.readline()
        assert ready == f"ready: pid {server.pid}, ledger {home}\n"

        second = batchline(home, "--server", sim_thread.url, "serve")
        out, err = second.communicate(timeout=60)
        assert (second.returncode, out) == (1, "")
        assert err == f"batchline: another Batchline controller is running, pid {server.pid}\n"

        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # the jobs queued before it started are done
            with Ledger(home) as ledger:
                if all(ledger.job(job).state == JobState.succeeded for job in ids):
                    break
            time.sleep(0.1)
        else:
            raise AssertionError("the served jobs did not finish")
    finally:
        server.send_signal(signal.SIGTERM)
        _out, err = server.communicate(timeout=60)
    assert server.returncode == 0, err
    assert "stopped; prompts already sent keep running in ComfyUI" in err
    assert "Traceback" not in err
    with Ledger(home) as ledger:
        ledger.lease.acquire()  # let go by the stopped controller
