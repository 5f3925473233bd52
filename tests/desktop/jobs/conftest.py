"""Fixtures shared by this folder's test files: a job of each state, a downloaded picture."""

from __future__ import annotations

import pytest
from PIL import Image

from core.job_state import Reason
from tests.core.helpers import fail_job, run_job
from tests.desktop.conftest import make_jobs


@pytest.fixture
def image(tmp_path):
    path = tmp_path / "out" / "job_1.png"
    path.parent.mkdir()
    Image.new("RGB", (640, 480), "#336699").save(path)
    return path


@pytest.fixture
def jobs(ledger, preset_name):
    ids = make_jobs(ledger, preset_name, 4)
    run_job(ledger, ids[1])
    fail_job(ledger, ids[2], Reason.oom)
    ledger.request_cancel(run_job(ledger, ids[3]) and ids[3])
    return {job.state.value: job for job in ledger.jobs()}
