"""Places in line from the change feed: higher priorities, then older batches' pending jobs
first, no ledger read."""

from __future__ import annotations

from dataclasses import replace

from core.job_state import JobState
from desktop.waiting_line import WaitingLine
from tests.desktop.conftest import make_jobs


def test_a_batch_waits_behind_older_batches_and_moves_up_as_they_go(ledger, preset_name) -> None:
    older = [ledger.job(job_id) for job_id in make_jobs(ledger, preset_name, 3)]
    mine = [ledger.job(job_id) for job_id in make_jobs(ledger, preset_name, 2)]
    newer = [ledger.job(job_id) for job_id in make_jobs(ledger, preset_name, 4)]
    line = WaitingLine()
    line.observe(older + mine + newer)
    assert line.places(mine) == {mine[0].id: 4, mine[1].id: 5}
    assert line.sent == 0
    sent = replace(older[0], state=JobState.queued)
    line.observe([sent])
    assert line.places(mine) == {mine[0].id: 3, mine[1].id: 4}
    assert line.sent == 1
    line.observe(
        [replace(sent, state=JobState.succeeded), replace(older[1], state=JobState.cancelled)]
    )
    assert line.sent == 0
    assert line.places(mine) == {mine[0].id: 2, mine[1].id: 3}
    first_sent = replace(mine[0], state=JobState.running)
    assert line.places([first_sent, mine[1]]) == {mine[1].id: 2}


def test_a_higher_priority_goes_ahead_of_older_batches_and_a_lower_one_behind_newer(
    ledger, preset_name
) -> None:
    older, mine = records(ledger, preset_name, 3), records(ledger, preset_name, 2)
    urgent = [replace(job, priority=5) for job in records(ledger, preset_name, 2)]
    later = [replace(job, priority=-1) for job in records(ledger, preset_name, 4)]
    line = WaitingLine()
    line.observe(older + mine + urgent + later)
    assert line.places(mine) == {mine[0].id: 6, mine[1].id: 7}, "behind 2 urgent and 3 older"
    assert line.places(urgent) == {urgent[0].id: 1, urgent[1].id: 2}
    assert line.places(later)[later[0].id] == 8, "behind every job of priority 0"

    raised = replace(mine[1], priority=5)  # one job of the batch moved up on its own
    line.observe([raised])  # older than the urgent batch: first of its priority
    assert line.places([mine[0], raised]) == {raised.id: 1, mine[0].id: 7}


def records(ledger, preset_name, count):
    return [ledger.job(job_id) for job_id in make_jobs(ledger, preset_name, count)]
