"""The batch's progress line: counts and the time left in words."""

from __future__ import annotations

from dataclasses import replace

import pytest

from core.job_state import JobState
from desktop.sheet.batch_progress import progress_text, time_left_text
from tests.desktop.conftest import make_jobs


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


def test_the_line_counts_the_batch(ledger, preset_name) -> None:
    jobs = [ledger.job(job_id) for job_id in make_jobs(ledger, preset_name, 6)]
    states = [JobState.succeeded, JobState.succeeded, JobState.failed, JobState.running]
    jobs = [replace(job, state=state) for job, state in zip(jobs, states, strict=False)] + jobs[4:]
    assert progress_text(jobs, 130) == "2 of 6 done · 1 failed · 1 running · about 2 min left"
    assert progress_text(jobs, None) == "2 of 6 done · 1 failed · 1 running"
    done = [replace(job, state=JobState.succeeded) for job in jobs]
    assert progress_text(done, 130) == "6 of 6 done"
