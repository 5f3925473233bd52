"""The filter bar: "N of M jobs" follows the filter and the feed."""

from __future__ import annotations

from core.job_state import JobState
from desktop.jobs.job_filter_bar import STATE_CHOICES
from tests.core.helpers import run_job
from tests.desktop.conftest import make_jobs


def test_the_count_follows_the_filter(window, ledger, preset_name, qtbot) -> None:
    first = make_jobs(ledger, preset_name, 3)
    make_jobs(ledger, preset_name, 2)
    window.model.load_all()
    window.refresh_batches()
    bar = window.filter_bar
    qtbot.waitUntil(lambda: bar.count.text() == "5 of 5 jobs")
    bar.batch.setCurrentIndex(bar.batch.findData(window.model.job_at(0).batch))
    assert bar.count.text() == "3 of 5 jobs"
    running = [label for label, states in STATE_CHOICES].index("Running")
    bar.states.setCurrentIndex(running)
    assert bar.count.text() == "0 of 5 jobs"
    run_job(ledger, first[1])
    window.model.load_all()
    assert window.model.job_at(1).state is JobState.running
    qtbot.waitUntil(lambda: bar.count.text() == "1 of 5 jobs")
    make_jobs(ledger, preset_name, 1)
    window.model.load_all()
    qtbot.waitUntil(lambda: bar.count.text() == "1 of 6 jobs")
