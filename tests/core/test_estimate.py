"""The wait estimate: a new job's place in line and the time until it is done, from the ledger."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from core.estimate import (
    RECENT_ATTEMPTS,
    live_estimate,
    position_estimate,
    typical_run_seconds,
    wait_estimate,
)
from core.job_state import Reason
from core.ledger import Ledger, PresetContent
from tests.core.ledger.conftest import WORKFLOW, make_jobs


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[Ledger]:
    with Ledger(tmp_path / "home") as opened:
        opened.presets.add("demo", PresetContent("hash-demo", WORKFLOW))
        yield opened


def run(ledger: Ledger, job_id: str, seconds: float, *, succeed: bool = True) -> None:
    """Send ``job_id`` and let it run ``seconds`` (as the server reports), then finish it."""
    pid = f"p-{job_id}"
    ledger.submit_attempt(job_id, pid, "http://x", "wf")
    ledger.observe_queued(pid, 1)
    ledger.observe_running(pid)
    if succeed:
        assert succeed(ledger, pid, [], "", (1000.0, 1000.0 + seconds))
    else:
        assert ledger.observe_failed(pid, Reason.oom, times=(1000.0, 1000.0 + seconds))


def test_position_estimate_uses_the_typical_duration() -> None:
    assert position_estimate(4, 6, 2.5) == (10, 25.0)
    assert position_estimate(4, 6, None) == (10, None)
    assert position_estimate(4, 6, 2.5, servers=2) == (10, 12.5), "two GPUs halve the wait"


def test_an_empty_ledger_has_no_wait_to_tell(ledger: Ledger) -> None:
    assert wait_estimate(ledger, 1, 3) == (3, None)
    assert typical_run_seconds(ledger) is None


def test_jobs_not_finished_are_ahead_and_succeeded_attempts_time_the_wait(
    ledger: Ledger,
) -> None:
    ids = make_jobs(ledger, 6)
    for job_id, seconds in zip(ids[:3], (10.0, 30.0, 20.0), strict=True):
        run(ledger, job_id, seconds)
    run(ledger, ids[3], 500.0, succeed=False)  # a failure does not time a job
    ledger.submit_attempt(ids[4], "p-sent", "http://x", "wf")  # sent, still in line
    assert typical_run_seconds(ledger) == 20.0
    assert wait_estimate(ledger, 1, 4) == (6, 120.0), "2 ahead + 4 new, 20 s each"
    assert wait_estimate(ledger, 2, 4) == (6, 60.0)
    assert wait_estimate(ledger, 1) == (2, 40.0), "the last job already in line"


def test_only_the_recent_succeeded_attempts_count(ledger: Ledger) -> None:
    ids = make_jobs(ledger, RECENT_ATTEMPTS + 5)
    for index, job_id in enumerate(ids):
        run(ledger, job_id, 1000.0 if index < 5 else 4.0)
    runs = ledger.recent_run_seconds(RECENT_ATTEMPTS)
    assert runs == [4.0] * RECENT_ATTEMPTS, "the 5 oldest, slow ones are left out"
    assert typical_run_seconds(ledger) == 4.0


def test_the_live_estimate_counts_comfyui_s_queue_and_our_jobs_not_sent(ledger: Ledger) -> None:
    assert live_estimate(ledger, 0, 0, 1, 1) == (1, None), "an empty queue: first in line"
    ids = make_jobs(ledger, 3)
    run(ledger, ids[0], 8.0)
    ledger.submit_attempt(ids[1], "p-sent", "http://x", "wf")  # ours, in ComfyUI's queue
    # ComfyUI holds 4 prompts: ours and 3 of other clients; ids[2] waits with us, unsent
    assert live_estimate(ledger, 4, 1, 1, 2) == (7, 56.0)
    assert live_estimate(ledger, 4, 1, 2, 2) == (7, 28.0)
    # ids[2] (priority 0) waits behind new jobs of priority 1: they stand behind ComfyUI's 4
    assert live_estimate(ledger, 4, 1, 1, 2, priority=1) == (6, 48.0)
