"""Tests for desktop.jobs.job_outputs: a job's pictures as a model, thumbnails made off-thread."""

from __future__ import annotations

import pytest

from desktop.jobs.job_details import JobDetailsWidget
from desktop.jobs.job_outputs import OutputsModel
from tests.core.helpers import succeed_job
from tests.desktop.conftest import make_jobs


def test_outputs_get_thumbnails_off_the_gui_thread(
    qtbot, qtmodeltester, ledger, preset_name, thumbnails, image
):
    job_id = make_jobs(ledger, preset_name, 1)[0]
    succeed_job(ledger, job_id, [str(image)])
    details = JobDetailsWidget(ledger, thumbnails)
    qtbot.addWidget(details)
    qtmodeltester.check(details.outputs)
    with qtbot.waitSignal(thumbnails.ready, timeout=10_000):
        details.show_job(ledger.job(job_id))
    qtbot.waitUntil(lambda: details.outputs.index(0).data(1) is not None)
    assert details.outputs.rowCount() == 1
    assert details.failure.isHidden()


@pytest.mark.expect_log("desktop.common.thumbnails")
def test_outputs_model_passes_the_tester(qtmodeltester, thumbnails) -> None:
    model = OutputsModel(thumbnails)
    qtmodeltester.check(model)
    model.set_paths(["/nonexistent/a.png", "/nonexistent/b.png"])
    assert model.rowCount() == 2
