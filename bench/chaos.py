"""Chaos run: 1,000 jobs while the server misbehaves and the controller is SIGKILLed 50 times.

Starts one `batchline simulate` process on loopback with HTTP faults (5xx, dropped connections,
prompts queued but answered by a drop, prompts queued or answered later than the controller's
request timeout), adds the model-free noise preset and queues the jobs. Then `batchline run
--until-idle` is started and SIGKILLed at random moments (`--kills` times) while a driver thread
restarts the simulator, drops its WebSockets, makes the odd job hang (a hung job is ended by
a restart, as a user would) and turns hostile for a few seconds at a time (answers that are
not JSON, that trickle past the request timeout, or that run past the size limit); a last run
goes until idle. Every loop is bounded in count and time
(`--deadline`). Prints figures and the invariants of bench/invariants.py; exit 1 if one breaks.
Run: `.venv/bin/python -m bench.chaos [--jobs 1000] [--kills 50] [--seed 1] [--deadline 900]`
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from bench.controller_kills import WORKFLOW, batchline
from bench.invariants import Check, RunFacts, check, report
from core.ledger import Ledger
from core.ledger.settings import OUTPUT_DIR

MAX_ATTEMPTS = 3  # the controller's default automatic attempts per job


@dataclass
class ChaosOptions:
    """The size of the run, the faults and the controller's timing (see `--help`)."""

    jobs: int = 1000
    kills: int = 50
    restarts: int = 20
    websocket_drops: int = 20
    hangs: int = 10
    hostile_phases: int = 10
    hostile_seconds: float = 3.0
    hostile_rate: float = 0.1  # of answers spoiled in each way during a hostile phase
    seed: int = 1
    deadline: float = 900.0
    job_seconds: float = 0.05
    error_rate: float = 0.03
    drop_rate: float = 0.02
    drop_after_queue_rate: float = 0.02
    late_queue_rate: float = 0.02
    late_answer_rate: float = 0.02
    late: float = 2.0
    request_timeout: float = 1.0
    settle: float = 3.0
    poll_interval: float = 0.1
    life: tuple[float, float] = (0.5, 5.0)  # seconds a controller lives before its SIGKILL
    event_gap: tuple[float, float] = (0.5, 4.0)  # seconds between server events
    hang_limit: float = 3.0  # a job running this long is hung: the simulator is restarted


@dataclass
class ChaosResult:
    checks: list[Check]
    facts: RunFacts
    kills: int
    events: Counter[str]
    http_faults: dict[str, int]
    last_exit: int | None
    wall: float
    folder: Path
    exits: Counter[int] = field(default_factory=Counter)

    @property
    def ok(self) -> bool:
        return all(item.ok for item in self.checks)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Simulator:
    """A `batchline simulate` process steered through its `/_sim` admin routes."""

    def __init__(self, folder: Path, options: ChaosOptions, log: IO[bytes]) -> None:
        self.url = f"http://127.0.0.1:{free_port()}"
        self.output = folder / "server"
        faults = {
            "--error-rate": options.error_rate,
            "--drop-rate": options.drop_rate,
            "--drop-after-queue-rate": options.drop_after_queue_rate,
            "--late-queue-rate": options.late_queue_rate,
            "--late-answer-rate": options.late_answer_rate,
            "--late": options.late,
        }
        args = [f"{k}={v}" for k, v in faults.items()]
        command = [sys.executable, "-m", "cli.main", "simulate"]
        command += ["--port", self.url.rsplit(":")[-1], "--output-dir", str(self.output)]
        command += ["--job-seconds", str(options.job_seconds), "--cpu-time-scale", "0"]
        self.process = subprocess.Popen(
            [*command, "--seed", str(options.seed), *args],
            stdout=log,
            stderr=log,
        )
        give_up = time.monotonic() + 30
        while True:
            try:
                self.stats()
                return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > give_up:
                    raise RuntimeError(f"simulator did not start at {self.url}") from None
                time.sleep(0.1)

    def admin(self, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.url + path, data=data, method="GET" if data is None else "POST"
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            result: dict[str, Any] = json.load(answer)
            return result

    def stats(self) -> dict[str, Any]:
        return self.admin("/_sim/stats")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def hostile(rate: float) -> dict[str, float]:
    """The simulator's fault settings for answers spoiled at ``rate`` in each hostile way."""
    return {"garbage_rate": rate, "trickle_rate": rate, "huge_rate": rate, "trickle_seconds": 1.0}


class ServerChaos(threading.Thread):
    """Restarts, WebSocket drops and hangs at random moments, each within its budget, until
    `calm` is set; a job running longer than `hang_limit` is ended by a restart until `done`."""

    def __init__(self, sim: Simulator, options: ChaosOptions, chance: random.Random) -> None:
        super().__init__(daemon=True)
        self.sim, self.options, self.chance = sim, options, chance
        self.calm, self.done = threading.Event(), threading.Event()
        self.events: Counter[str] = Counter()
        self.budget = {
            "restart": options.restarts,
            "websocket drop": options.websocket_drops,
            "hang": options.hangs,
            "hostile phase": options.hostile_phases,
        }
        self.hostile_until: float | None = None
        self.errors: list[str] = []

    def run(self) -> None:
        next_event = time.monotonic() + self.chance.uniform(*self.options.event_gap)
        running, since = None, time.monotonic()
        while not self.done.wait(0.2):
            try:
                now = time.monotonic()
                if self.hostile_until is not None and (
                    now > self.hostile_until or self.calm.is_set()
                ):
                    self.sim.admin("/_sim/faults", hostile(0.0))
                    self.hostile_until = None
                if not self.calm.is_set() and now >= next_event:
                    self._event()
                    next_event = now + self.chance.uniform(*self.options.event_gap)
                current = self.sim.stats()["running"]
                if current is None or current != running:
                    running, since = current, now
                elif now - since > self.options.hang_limit:
                    self.sim.admin("/_sim/restart", {})
                    self.events["restart (hung job)"] += 1
                    running = None
            except OSError as exc:  # the simulator process died: the checks will tell
                self.errors.append(str(exc))
                return

    def _event(self) -> None:
        kinds = [kind for kind, left in self.budget.items() if left > 0]
        if not kinds:
            return
        kind = self.chance.choice(kinds)
        self.budget[kind] -= 1
        self.events[kind] += 1
        if kind == "restart":
            self.sim.admin("/_sim/restart", {})
        elif kind == "websocket drop":
            self.sim.admin("/_sim/drop_websockets", {})
        elif kind == "hostile phase":
            self.sim.admin("/_sim/faults", hostile(self.options.hostile_rate))
            self.hostile_until = time.monotonic() + self.options.hostile_seconds
        else:
            self.sim.admin("/_sim/faults", {"hang_next": 1})


def run_chaos(options: ChaosOptions, folder: Path) -> ChaosResult:
    """The whole run in ``folder`` (ledger, outputs, logs); see the module docstring."""
    started = time.monotonic()
    deadline = started + options.deadline
    chance = random.Random(options.seed)
    home, output = folder / "home", folder / "pictures"
    preset = folder / "noise.json"
    preset.write_text(json.dumps(WORKFLOW))
    with (folder / "simulator.log").open("wb") as sim_log, (folder / "run.log").open("wb") as log:
        sim = Simulator(folder, options, sim_log)
        chaos = ServerChaos(sim, options, chance)
        try:
            cli = [*batchline(home, sim.url, "preset", "add", str(preset), "--name", "noise")]
            subprocess.run(cli, check=True, capture_output=True, timeout=60)
            with Ledger(home) as ledger:
                OUTPUT_DIR.set(ledger, output)
            cli = batchline(home, sim.url, "queue", "noise", "--count", str(options.jobs))
            subprocess.run(cli, check=True, capture_output=True, timeout=120)
            run = batchline(
                home, sim.url, "run", "--until-idle",
                "--request-timeout", str(options.request_timeout),
                "--settle", str(options.settle),
                "--poll-interval", str(options.poll_interval),
            )  # fmt: skip
            chaos.start()
            kills, exits, last_exit = 0, Counter[int](), None
            while kills < options.kills and time.monotonic() < deadline:
                with subprocess.Popen(run, stdout=log, stderr=log) as controller:
                    life = min(chance.uniform(*options.life), deadline - time.monotonic())
                    try:
                        exits[controller.wait(max(life, 0.0))] += 1
                        if exits[0]:
                            break  # idle before its kill: every job has ended
                    except subprocess.TimeoutExpired:
                        controller.kill()  # SIGKILL: no cleanup of any kind
                        controller.wait()
                        kills += 1
            chaos.calm.set()
            if not exits[0]:
                with subprocess.Popen(run, stdout=log, stderr=log) as controller:
                    try:
                        last_exit = controller.wait(max(deadline - time.monotonic(), 1.0))
                    except subprocess.TimeoutExpired:
                        controller.kill()
                        controller.wait()
            chaos.done.set()
            chaos.join(30)
            stats = sim.stats()
        finally:
            chaos.done.set()
            sim.stop()
    with Ledger(home) as ledger:
        facts = RunFacts.read(ledger, [stats])
    checks = check(facts, output, max_attempts=MAX_ATTEMPTS)
    events = chaos.events + Counter({"restarts counted by the simulator": stats["restarts"]})
    return ChaosResult(
        checks=checks,
        facts=facts,
        kills=kills,
        events=events,
        http_faults=stats["http_faults_injected"],
        last_exit=last_exit,
        wall=time.monotonic() - started,
        folder=folder,
        exits=exits,
    )


def figures(result: ChaosResult) -> str:
    """The table printed at the end of a run."""
    facts = result.facts
    rows = [
        ("jobs", str(len(facts.jobs))),
        ("jobs by final state", ", ".join(f"{k} {v}" for k, v in sorted(facts.states().items()))),
        ("attempts total", str(facts.attempt_total())),
        ("prompts executed", str(sum(facts.executions.values()))),
        ("controller kills (SIGKILL)", str(result.kills)),
        (
            "controller exits before kill",
            ", ".join(f"rc {k}: {v}" for k, v in result.exits.items()) or "-",
        ),
        ("last run exit code", str(result.last_exit)),
        *((f"server: {kind}", str(n)) for kind, n in sorted(result.events.items())),
        *((f"HTTP fault: {kind}", str(n)) for kind, n in sorted(result.http_faults.items())),
        ("wall time", f"{result.wall:.1f} s"),
    ]
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"  {name.ljust(width)}  {value}" for name, value in rows)


def main() -> int:
    defaults = ChaosOptions()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=defaults.jobs)
    parser.add_argument("--kills", type=int, default=defaults.kills)
    parser.add_argument("--restarts", type=int, default=defaults.restarts)
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument(
        "--deadline", type=float, default=defaults.deadline, help="overall seconds (900)"
    )
    parser.add_argument("--keep", type=Path, help="run in this folder and keep it")
    args = parser.parse_args()
    options = ChaosOptions(
        jobs=args.jobs,
        kills=args.kills,
        restarts=args.restarts,
        seed=args.seed,
        deadline=args.deadline,
    )
    folder = args.keep or Path(tempfile.mkdtemp(prefix="batchline-chaos-"))
    folder.mkdir(parents=True, exist_ok=True)
    result = run_chaos(options, folder)
    print(figures(result))
    print(report(result.checks))
    if result.ok:
        print("invariants hold")
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)
        return 0
    print(f"INVARIANTS BROKEN; ledger, outputs and logs kept in {folder}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
