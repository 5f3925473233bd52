"""A short chaos run: 60 jobs, faults on every route, server restarts, WebSocket drops, a hang,
and 5 SIGKILLs of `batchline run`; every exactly-once invariant must hold (bench/chaos.py).

An end-to-end soak across the whole controller, kept in its own file rather than under one
module's tests."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from bench.chaos import ChaosOptions, figures, run_chaos
from bench.invariants import RunFacts, check, report
from core.job_state import JobState
from core.ledger import TransitionRecord


@pytest.mark.slow
def test_short_chaos_run_keeps_every_invariant(tmp_path: Path) -> None:
    options = ChaosOptions(
        jobs=60,
        kills=5,
        restarts=2,
        websocket_drops=2,
        hangs=1,
        hostile_phases=1,
        deadline=90.0,
        life=(0.8, 3.0),
        event_gap=(0.5, 2.0),
    )
    result = run_chaos(options, tmp_path)

    assert result.ok, f"{figures(result)}\n{report(result.checks, 10)}\nlogs in {tmp_path}"
    assert result.kills + sum(result.exits.values()) >= 1
    assert result.events["restarts counted by the simulator"] >= 1
    assert sum(result.http_faults.values()) > 0
    assert len(result.facts.jobs) == 60


def _moves(*steps: tuple[int, str, str]) -> list[TransitionRecord]:
    return [
        TransitionRecord("job", n, float(i), JobState(a), JobState(b), "")
        for i, (n, a, b) in enumerate(steps)
    ]


def _facts(transitions: list[TransitionRecord], runs: dict[str, int]) -> RunFacts:
    return RunFacts([], {}, {"job": transitions}, Counter(runs), Counter())


def test_the_checks_see_a_backward_move_and_a_second_run() -> None:
    retried = _moves(
        (1, "pending", "queued"), (1, "queued", "running"), (1, "running", "pending"),
        (2, "pending", "running"), (2, "running", "failed"), (2, "failed", "pending"),
        (3, "pending", "succeeded"),
    )  # fmt: skip
    assert all(item.ok for item in check(_facts(retried, {"a": 1}), None))

    backward = _moves((1, "pending", "running"), (1, "running", "queued"))
    after_end = _moves((1, "pending", "succeeded"), (1, "succeeded", "cancelled"))
    for moves in (backward, after_end):
        broken = [item.name for item in check(_facts(moves, {}), None) if not item.ok]
        assert broken == ["every transition forward within an attempt"]
    broken = [item.name for item in check(_facts([], {"a": 2}), None) if not item.ok]
    assert broken == ["no prompt_id executed more than once"]
