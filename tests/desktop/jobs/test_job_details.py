"""Job details: attempts, timeline, failure node and message, output thumbnails."""

from __future__ import annotations

from core.job_state import AttemptResult, Reason
from core.pictures.pictures import job_outputs
from desktop.jobs.job_details import JobDetailsWidget
from tests.core.helpers import fail_job, succeed_late
from tests.desktop.conftest import make_jobs


def test_failed_job_shows_attempt_timeline_and_failure(qtbot, ledger, preset_name, thumbnails):
    job_id = make_jobs(ledger, preset_name, 1)[0]
    fail_job(ledger, job_id, Reason.oom)
    details = JobDetailsWidget(ledger, thumbnails)
    qtbot.addWidget(details)
    details.show_job(ledger.job(job_id))
    assert details.attempts.rowCount() == 1
    assert details.attempts.index(0, 1).data() == "Failed"
    assert details.attempts.index(0, 2).data() == "out of memory"
    assert details.attempts.index(0, 8).data() == f"prompt-{job_id}-1"
    tos = [details.transitions.index(r, 2).data() for r in range(details.transitions.rowCount())]
    assert tos == ["Queued", "Running", "Failed"]
    assert details.transitions.index(2, 3).data() == "out of memory"
    assert (
        details.failure.text() == "out of memory in KSampler (node 3)\nMessage: CUDA out of memory"
    )
    assert job_id in details.header.text()
    assert "KSampler · seed=" in details.header.text(), "named as the composer names it"


def test_a_late_success_shows_the_older_attempts_pictures(ledger, preset_name, image):
    job_id = make_jobs(ledger, preset_name, 1)[0]
    ledger.submit_attempt(job_id, "old", "http://127.0.0.1:8188", "wf")
    ledger.observe_retryable("old", AttemptResult.lost, Reason.timeout)
    ledger.submit_attempt(job_id, "new", "http://127.0.0.1:8188", "wf")
    assert succeed_late(ledger, "old", [str(image)])
    assert job_outputs(ledger, job_id) == [str(image)]


def test_a_narrow_details_pane_shows_an_attempts_result_and_reason_without_scrolling(
    qtbot, ledger, preset_name, thumbnails
):
    from PySide6.QtWidgets import QTableView

    job_id = make_jobs(ledger, preset_name, 1)[0]
    fail_job(ledger, job_id, Reason.oom)
    details = JobDetailsWidget(ledger, thumbnails)
    qtbot.addWidget(details)
    details.resize(300, 700)  # the pane's width in a 1366x768 window
    details.show()
    details.show_job(ledger.job(job_id))
    view = next(v for v in details.findChildren(QTableView) if v.accessibleName() == "Attempts")
    header = view.horizontalHeader()
    qtbot.waitUntil(lambda: header.sectionSize(2) > 0)
    reason_end = header.sectionViewportPosition(2) + header.sectionSize(2)
    assert reason_end <= view.viewport().width()
    assert view.horizontalScrollBar().value() == 0


def test_the_timelines_cause_wraps_within_a_narrow_pane(qtbot, ledger, preset_name, thumbnails):
    from PySide6.QtWidgets import QTableView

    job_id = make_jobs(ledger, preset_name, 1)[0]
    fail_job(ledger, job_id, Reason.oom)
    details = JobDetailsWidget(ledger, thumbnails)
    qtbot.addWidget(details)
    details.resize(300, 700)
    details.show()
    details.show_job(ledger.job(job_id))
    view = next(v for v in details.findChildren(QTableView) if v.accessibleName() == "Transitions")
    header = view.horizontalHeader()
    last = header.count() - 1
    qtbot.waitUntil(lambda: header.sectionSize(last) > 0)
    cause_end = header.sectionViewportPosition(last) + header.sectionSize(last)
    assert cause_end <= view.viewport().width()


def test_the_summary_names_the_batch_and_shows_outside_text_as_text(
    qtbot, ledger, preset_name, thumbnails
) -> None:
    job_id = make_jobs(ledger, preset_name, 1)[0]
    batch = ledger.job(job_id).batch
    ledger.name_batch(batch, "<i>fox & study")
    details = JobDetailsWidget(ledger, thumbnails)
    qtbot.addWidget(details)
    details.show_job(ledger.job(job_id))
    assert f"&lt;i&gt;fox &amp; study ({batch})" in details.header.text()


def test_a_pending_job_says_not_sent_yet_not_attempt_1(qtbot, ledger, preset_name, thumbnails):
    job_id, retried = make_jobs(ledger, preset_name, 2)
    details = JobDetailsWidget(ledger, thumbnails)
    qtbot.addWidget(details)
    details.show_job(ledger.job(job_id))
    assert "not sent yet" in details.header.text()
    assert "attempt 1" not in details.header.text()
    fail_job(ledger, retried, Reason.oom)
    ledger.retry(retried)
    details.show_job(ledger.job(retried))
    assert "attempt 2 not sent yet" in details.header.text()


def test_the_table_leaves_a_pending_jobs_attempt_blank(model, ledger, preset_name) -> None:
    from PySide6.QtCore import Qt

    from desktop.jobs.job_table_model import Column

    (job_id,) = make_jobs(ledger, preset_name, 1)
    model.load_all()
    cell = model.index(model.row_of(job_id), Column.attempt)
    assert cell.data() == ""
    assert "Not sent" in cell.data(Qt.ItemDataRole.ToolTipRole)
