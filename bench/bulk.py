"""Benchmark: bulk commands over 3,000 jobs against queueing them.

Queues a batch with `batchline queue --count 3000`, then times, each on fresh jobs where needed:
the controller's cancel_batch and retry (what the window calls), the ledger transactions under
them alone (what a thread would hold SQLite's write lock for), and `batchline cancel --batch` and
`batchline retry JOB...` (every job named). Commands run in this process, so interpreter start-up
is not counted. Prints each time and its ratio to queueing (target: a few times at most).
Run: `make bench` or `.venv/bin/python bench/bulk.py [JOBS]`.
"""

from __future__ import annotations

import contextlib
import io
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from cli.main import main
from core.comfy import ComfyClient
from core.controller import Controller
from core.job_state import JobState
from core.ledger import Ledger

if TYPE_CHECKING:
    from collections.abc import Callable

PRESET = Path(__file__).resolve().parent.parent / "resources" / "presets"
TXT2IMG = PRESET / "Portrait txt2img (SD 1.5).json"
NO_SERVER = "http://127.0.0.1:9"  # nothing listens: the bundled catalogue is used


class Bench:
    def __init__(self, home: Path, jobs: int) -> None:
        self.home, self.jobs = home, jobs

    def cli(self, *args: str) -> str:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            code = main(["--data-dir", str(self.home), "--server", NO_SERVER, *args])
        if code not in (0, 1):  # 1: some jobs refused, which a retry of every job expects
            raise SystemExit(f"batchline {' '.join(args[:2])} failed with exit code {code}")
        return out.getvalue()

    def queue(self) -> tuple[str, list[str]]:
        ids = self.cli("queue", "portrait", "--count", str(self.jobs)).split()
        with Ledger(self.home) as ledger:
            return ledger.job(ids[0]).batch, ids


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def main_bench(jobs: int) -> int:
    with tempfile.TemporaryDirectory() as folder:
        bench = Bench(Path(folder), jobs)
        bench.cli("preset", "add", str(TXT2IMG), "--name", "portrait")
        bench.queue()  # warm-up: imports, first ledger pages
        queueing = timed(bench.queue)
        times: dict[str, float] = {}

        batch, ids = bench.queue()
        times["batchline cancel --batch"] = timed(lambda: bench.cli("cancel", "--batch", batch))
        times["batchline retry JOB x N"] = timed(lambda: bench.cli("retry", *ids))

        with Ledger(bench.home) as ledger:
            controller = Controller(ledger, ComfyClient(NO_SERVER), output_dir=bench.home / "out")
            batch, ids = bench.queue()
            times["controller.cancel_batch"] = timed(lambda: controller.cancel_batch(batch))
            times["controller.retry"] = timed(lambda: controller.retry(ids))
            _, ids = bench.queue()
            times["  its transaction: request_cancel_many"] = timed(
                lambda: ledger.request_cancel_many(ids)
            )
            times["  its transaction: retry_many"] = timed(lambda: ledger.retry_many(ids))
            assert ledger.count_by_state() == {JobState.pending: jobs * 5}

    print(f"queueing {jobs} jobs (batchline queue): {queueing * 1000:.0f} ms")
    for name, seconds in times.items():
        print(f"{name}: {seconds * 1000:.0f} ms, {seconds / queueing:.2f}x queueing")
    worst = max(seconds for name, seconds in times.items() if not name.startswith(" "))
    print(f"slowest bulk command / queueing: {worst / queueing:.2f} (target: a few times at most)")
    return 0


if __name__ == "__main__":
    sys.exit(main_bench(int(sys.argv[1]) if len(sys.argv) > 1 else 3000))
