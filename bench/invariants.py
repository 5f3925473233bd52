"""Exactly-once invariants checked after a soak or chaos run, from the ledger and the servers.

`check` reads a closed-down run (no controller running): the ledger's jobs, attempts and
transitions, the simulators' `/_sim/stats` (execution and success counts survive simulated
restarts) and the output folder. Each `Check` names one invariant and lists what broke it.
Used by bench/controller_kills.py, bench/chaos.py and the in-suite chaos test.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.job_state import AttemptResult, JobState

if TYPE_CHECKING:
    from core.ledger import AttemptRecord, JobRecord, Ledger, TransitionRecord

# Within one attempt a job's state only moves forward along this order; terminal is last.
_RANK = {JobState.pending: 0, JobState.queued: 1, JobState.running: 2, JobState.cancelling: 3}
_TERMINAL_RANK = 4
_CLOSED_RANK = 5  # the attempt was followed by a new one
PICTURE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".webp", ".gif"})


@dataclass
class Check:
    """One invariant: its name and the breaches found (empty when it holds)."""

    name: str
    breaches: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.breaches


@dataclass
class RunFacts:
    """What the checks read: every job with its attempts and transitions, and server counters."""

    jobs: list[JobRecord]
    attempts: dict[str, list[AttemptRecord]]
    transitions: dict[str, list[TransitionRecord]]
    executions: Counter[str]
    successes: Counter[str]

    @classmethod
    def read(cls, ledger: Ledger, server_stats: list[dict[str, Any]]) -> RunFacts:
        jobs = ledger.jobs()
        ids = [job.id for job in jobs]
        executions: Counter[str] = Counter()
        successes: Counter[str] = Counter()
        for stats in server_stats:
            executions.update(stats["execution_counts"])
            successes.update(stats["success_counts"])
        attempts, transitions = ledger.attempts_of(ids), ledger.transitions_of(ids)
        return cls(jobs, attempts, transitions, executions, successes)

    def states(self) -> Counter[str]:
        return Counter(job.state.value for job in self.jobs)

    def attempt_total(self) -> int:
        return sum(len(attempts) for attempts in self.attempts.values())


def check(
    facts: RunFacts, output_dir: Path | None, max_attempts: int = 3, manual_retries: int = 0
) -> list[Check]:
    """Every invariant, in a fixed order. ``output_dir`` None skips the output-file check."""
    checks = [
        _every_job_ended(facts),
        _no_prompt_executed_twice(facts),
        _no_job_succeeded_twice_on_servers(facts),
        _no_job_succeeded_twice_in_ledger(facts),
        _attempts_within_limit(facts, max_attempts, manual_retries),
        _transitions_forward(facts),
    ]
    if output_dir is not None:
        checks.append(_outputs_written_once(facts, output_dir))
    return checks


def _every_job_ended(facts: RunFacts) -> Check:
    found = Check("every job ended (terminal state)")
    found.breaches = [f"{job.id} is {job.state.value}" for job in facts.jobs if job.state.is_active]
    return found


def _no_prompt_executed_twice(facts: RunFacts) -> Check:
    found = Check("no prompt_id executed more than once")
    found.breaches = [f"{pid} ran {n} times" for pid, n in facts.executions.items() if n > 1]
    return found


def _no_job_succeeded_twice_on_servers(facts: RunFacts) -> Check:
    """A success is recorded before its pictures are fetched, and one whose history a restart
    wiped is found by its pictures: no job runs to success twice, whenever the controller was
    killed and the server restarted."""
    found = Check("no job executed to success twice on a server")
    for job_id, attempts in facts.attempts.items():
        wins = [a.prompt_id for a in attempts for _ in range(facts.successes[a.prompt_id])]
        if len(wins) > 1:
            found.breaches.append(f"{job_id} succeeded {len(wins)} times: {', '.join(wins)}")
    return found


def _no_job_succeeded_twice_in_ledger(facts: RunFacts) -> Check:
    found = Check("at most one succeeded attempt per job in the ledger")
    for job_id, attempts in facts.attempts.items():
        wins = [a.n for a in attempts if a.result == AttemptResult.succeeded]
        if len(wins) > 1:
            found.breaches.append(f"{job_id} attempts {wins} all succeeded")
    return found


def _attempts_within_limit(facts: RunFacts, max_attempts: int, manual_retries: int) -> Check:
    found = Check(f"automatic attempts within {max_attempts} (+{manual_retries} manual)")
    for job in facts.jobs:
        sent = len(facts.attempts.get(job.id, []))
        if job.auto_attempts > max_attempts or sent > max_attempts + manual_retries:
            found.breaches.append(f"{job.id}: {job.auto_attempts} automatic, {sent} sent")
    return found


def _transitions_forward(facts: RunFacts) -> Check:
    """A move to ``pending`` opens the next attempt and is recorded under the attempt it ends
    (an automatic retry, or a manual one after a terminal state): it is that attempt's last."""
    found = Check("every transition forward within an attempt")
    for job_id, transitions in facts.transitions.items():
        rank_now: dict[int, int] = {}
        for move in transitions:
            target = move.to_state
            before = rank_now.get(move.attempt)
            if target == JobState.pending:
                rank, back = _CLOSED_RANK, before == _CLOSED_RANK
            else:
                rank = _TERMINAL_RANK if target.is_terminal else _RANK[target]
                back = before is not None and (rank < before or before >= _TERMINAL_RANK)
            if back:
                found.breaches.append(
                    f"{job_id} attempt {move.attempt}: {move.from_state.value} -> "
                    f"{target.value} ({move.cause})"
                )
            rank_now[move.attempt] = max(rank, before or 0)
    return found


def _outputs_written_once(facts: RunFacts, output_dir: Path) -> Check:
    found = Check("every output file written once")
    owners: dict[Path, list[str]] = {}
    for job_id, attempts in facts.attempts.items():
        for attempt in attempts:
            for path in attempt.outputs:
                owners.setdefault(Path(path).resolve(), []).append(f"{job_id}#{attempt.n}")
    for path, who in owners.items():
        if len(who) > 1:
            found.breaches.append(f"{path} recorded by {', '.join(who)}")
        if not path.is_file():
            found.breaches.append(f"{path} recorded by {who[0]} does not exist")
    if output_dir.is_dir():
        for path in sorted(output_dir.rglob("*")):
            if path.suffix.lower() in PICTURE_SUFFIXES and path.resolve() not in owners:
                found.breaches.append(f"{path} is recorded by no job")
    return found


def report(checks: list[Check], examples: int = 3) -> str:
    """One line per invariant (``ok`` or the breach count and a few examples)."""
    lines = []
    for item in checks:
        if item.ok:
            lines.append(f"  ok      {item.name}")
        else:
            shown = "; ".join(item.breaches[:examples])
            lines.append(f"  BROKEN  {item.name}: {len(item.breaches)} ({shown})")
    return "\n".join(lines)
