"""Places in line from the change feed: older batches' pending jobs first, no ledger read."""

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
