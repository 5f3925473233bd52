"""The batch's progress line under the sheet: its counts (`BatchCounts`) and the bar, whose
succeeded, failed and cancelled parts are told apart."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtGui import QColor

from core.job_state import JobState
from desktop.sheet.batch_progress import CANCELLED_COLOUR, FAILED_COLOUR, BatchProgress
from tests.desktop.conftest import make_jobs


def shown(qtbot, progress: BatchProgress) -> None:
    progress.resize(400, 60)
    progress.show()
    qtbot.waitExposed(progress)


def colours_of(progress: BatchProgress) -> list[tuple[int, str]]:
    return [(width, colour.name()) for width, colour in progress.bar.parts()]


def test_the_line_and_the_bar_follow_the_batch(qtbot, ledger, preset_name) -> None:
    progress = BatchProgress()
    qtbot.addWidget(progress)
    shown(qtbot, progress)
    jobs = [ledger.job(job_id) for job_id in make_jobs(ledger, preset_name, 5)]
    states = [JobState.succeeded, JobState.failed, JobState.running, JobState.cancelling]
    jobs = [replace(job, state=state) for job, state in zip(jobs, states, strict=False)] + jobs[4:]
    progress.show_jobs(jobs, 130)
    assert progress.summary.text() == (
        "1 of 5 done · 1 failed · 1 running · 1 cancelling · about 2 min left"
    )
    width = progress.bar.width()
    highlight = progress.bar.palette().highlight().color().name()
    failed = round(width * 2 / 5) - round(width / 5)
    assert colours_of(progress) == [(round(width / 5), highlight), (failed, FAILED_COLOUR)]
    assert (
        progress.bar.accessibleDescription() == "1 of 5 done · 1 failed · 1 running · 1 cancelling"
    )
    progress.show_jobs([], None)
    assert progress.summary.text() == ""


def test_a_batch_whose_every_job_failed_is_a_red_bar_not_a_full_one(
    qtbot, ledger, preset_name
) -> None:
    """Seen: 40 failed jobs made a full blue bar, read at a glance as "all done"."""
    progress = BatchProgress()
    qtbot.addWidget(progress)
    shown(qtbot, progress)
    jobs = [
        replace(ledger.job(j), state=JobState.failed) for j in make_jobs(ledger, preset_name, 40)
    ]
    progress.show_jobs(jobs, None)
    assert progress.summary.text() == "0 of 40 done · 40 failed"
    assert colours_of(progress) == [(progress.bar.width(), FAILED_COLOUR)]
    image = progress.bar.grab().toImage()
    middle = image.pixelColor(image.width() // 2, image.height() // 2)
    assert middle == QColor(FAILED_COLOUR), middle.name()
    jobs[:10] = [replace(job, state=JobState.cancelled) for job in jobs[:10]]
    progress.show_jobs(jobs, None)
    assert [colour for _width, colour in colours_of(progress)] == [FAILED_COLOUR, CANCELLED_COLOUR]
