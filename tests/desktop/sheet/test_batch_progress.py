"""The batch's progress line under the sheet: its counts (`BatchCounts`) and the bar."""

from __future__ import annotations

from dataclasses import replace

from core.job_state import JobState
from desktop.sheet.batch_progress import BatchProgress
from tests.desktop.conftest import make_jobs


def test_the_line_and_the_bar_follow_the_batch(qtbot, ledger, preset_name) -> None:
    progress = BatchProgress()
    qtbot.addWidget(progress)
    jobs = [ledger.job(job_id) for job_id in make_jobs(ledger, preset_name, 5)]
    states = [JobState.succeeded, JobState.failed, JobState.running, JobState.cancelling]
    jobs = [replace(job, state=state) for job, state in zip(jobs, states, strict=False)] + jobs[4:]
    progress.show_jobs(jobs, 130)
    assert progress.summary.text() == (
        "1 of 5 done · 1 failed · 1 running · 1 cancelling · about 2 min left"
    )
    assert (progress.bar.value(), progress.bar.maximum()) == (2, 5)
    progress.show_jobs([], None)
    assert progress.summary.text() == ""
