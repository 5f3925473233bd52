"""Soak script: `batchline run` killed with SIGKILL 10 times during a 100-job batch.

Starts a simulated ComfyUI in this process (SimulatorThread, loopback), adds a model-free preset,
queues 100 jobs, then starts `batchline run --until-idle` and kills it at random moments, 10
times, before letting a last run finish. Prints what happened and checks that every job
succeeded and the invariants of bench/invariants.py hold (no prompt executed twice, ...).
With `--servers 2` the controller drives two simulated servers at once (a prompt run once on
each would count as run twice).
Run: `.venv/bin/python -m bench.controller_kills [--jobs 100] [--kills 10] [--seed 1] [--servers 2]`
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.feed import WORKFLOW
from bench.invariants import RunFacts, report
from bench.invariants import check as check_invariants
from core.ledger import Ledger
from core.ledger.settings import OUTPUT_DIR
from simulator import SimulatorConfig
from simulator.thread import SimulatorThread


def batchline(home: Path, server: str, *args: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "cli.main",
        "--data-dir",
        str(home),
        "--server",
        server,
        *args,
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=100)
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--servers", type=int, default=1)
    options = parser.parse_args()
    chance = random.Random(options.seed)
    with tempfile.TemporaryDirectory() as folder:
        home, preset = Path(folder) / "home", Path(folder) / "soak.json"
        output = Path(folder) / "pictures"
        preset.write_text(json.dumps(WORKFLOW))
        sims = [
            SimulatorThread(
                SimulatorConfig(
                    job_seconds=0.1, cpu_time_scale=0.0, output_dir=Path(folder) / f"server-{n}"
                )
            )
            for n in range(options.servers)
        ]
        url = ",".join(sim.start() for sim in sims)
        try:
            subprocess.run(
                batchline(home, url, "preset", "add", str(preset), "--name", "soak"),
                check=True,
                capture_output=True,
            )
            with Ledger(home) as ledger:
                OUTPUT_DIR.set(ledger, output)
            subprocess.run(
                batchline(home, url, "queue", "soak", "--count", str(options.jobs)),
                check=True,
                capture_output=True,
            )
            started = time.monotonic()
            for kill in range(options.kills):
                with subprocess.Popen(
                    batchline(home, url, "run", "--until-idle"),
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                ) as run:
                    delay = chance.uniform(0.2, 1.5)
                    time.sleep(delay)
                    run.kill()
                print(f"kill {kill + 1}: after {delay:.2f} s")
            final = subprocess.run(
                batchline(home, url, "run", "--until-idle"),
                capture_output=True,
                text=True,
                timeout=600,
            )
            print(f"last run exit {final.returncode} after {time.monotonic() - started:.1f} s")
            return check(home, output, sims)
        finally:
            for sim in sims:
                sim.stop()


def check(home: Path, output: Path, sims: list[SimulatorThread]) -> int:
    with Ledger(home) as ledger:
        facts = RunFacts.read(ledger, [sim.stats() for sim in sims])
    checks = check_invariants(facts, output)
    states = dict(facts.states())
    print(f"jobs: {len(facts.jobs)}, states: {states}, attempts: {facts.attempt_total()}")
    print(f"servers: {len(sims)}")
    print(report(checks))
    ok = states == {"succeeded": len(facts.jobs)} and all(item.ok for item in checks)
    print("invariants hold" if ok else "INVARIANTS BROKEN")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
