"""A batch's counts read once, from the ledger or the feed's jobs, and the words the tray, the
contact sheet's line and the batch notice make of them."""

from __future__ import annotations

from dataclasses import replace

import pytest

from core.batch.batch_counts import BatchCounts, time_left_text
from core.job_state import JobState
from core.ledger import Ledger, NewJob
from tests.core.helpers import fail_job, run_job, succeed_job


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (10, "less than a minute left"),
        (40, "about 1 min left"),
        (130, "about 2 min left"),
        (3 * 3600 + 5 * 60, "about 3 h 05 min left"),
    ],
)
def test_time_left_in_words(seconds: float, text: str) -> None:
    assert time_left_text(seconds) == text


def make_jobs(ledger: Ledger, count: int) -> list[str]:
    jobs = [NewJob({"3.seed": n}) for n in range(count)]
    _batch, ids = ledger.create_batch("noise", jobs, requester="tester")
    return ids


def test_the_ledger_and_the_feed_give_the_same_counts(ledger, tmp_path) -> None:
    ids = make_jobs(ledger, 7)
    picture = tmp_path / "a.png"
    picture.write_bytes(b"png")
    succeed_job(ledger, ids[0], [str(picture)])
    fail_job(ledger, ids[1])
    ledger.request_cancel(ids[2])  # never sent: cancelled at once
    run_job(ledger, ids[3])
    run_job(ledger, ids[4])
    ledger.request_cancel(ids[4])  # running: cancelling until ComfyUI confirms
    batch = ledger.job(ids[0]).batch
    counts = BatchCounts.read(ledger, batch)
    assert counts == BatchCounts.of_jobs(ledger.jobs(batch=batch))
    assert counts == BatchCounts(
        succeeded=1, failed=1, cancelled=1, running=1, cancelling=1, waiting=2
    )
    assert (counts.finished, counts.active, counts.total, counts.over) == (3, 4, 7, False)
    assert BatchCounts.read(ledger) == counts  # the whole ledger: this batch alone


def test_the_sheets_line_counts_a_cancelling_job_as_cancelling(ledger) -> None:
    jobs = [ledger.job(job_id) for job_id in make_jobs(ledger, 6)]
    states = [JobState.succeeded, JobState.succeeded, JobState.failed, JobState.running]
    jobs = [replace(job, state=state) for job, state in zip(jobs, states, strict=False)] + jobs[4:]
    line = BatchCounts.of_jobs(jobs).progress_line
    assert line(130) == "2 of 6 done · 1 failed · 1 running · about 2 min left"
    assert line(None) == "2 of 6 done · 1 failed · 1 running"
    jobs[4] = replace(jobs[4], state=JobState.cancelling)  # was counted "2 running" before
    assert BatchCounts.of_jobs(jobs).progress_line(None) == (
        "2 of 6 done · 1 failed · 1 running · 1 cancelling"
    )
    done = [replace(job, state=JobState.succeeded) for job in jobs]
    assert BatchCounts.of_jobs(done).progress_line(130) == "6 of 6 done"


def test_the_trays_lines() -> None:
    counts = BatchCounts(succeeded=5, running=1, waiting=5, failed=1)
    assert counts.tray_lines() == ["5 of 12 done", "1 running, 5 waiting", "1 failed"]
    assert BatchCounts(succeeded=12).tray_lines() == ["All done: 12 of 12 succeeded"]
    assert BatchCounts().tray_lines() == ["No jobs yet"]
    cancelling = BatchCounts(succeeded=1, running=1, cancelling=2)  # was left out before
    assert cancelling.tray_lines() == ["1 of 4 done", "1 running, 0 waiting, 2 cancelling"]
