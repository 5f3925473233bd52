"""Filtering by state and batch, and sorting by raw values."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from core.job_state import JobState
from desktop.jobs.job_filter_proxy import JobFilterProxyModel
from desktop.jobs.job_table_model import JOB_ROLE, Column, JobTableModel
from tests.desktop.conftest import make_jobs
from tests.desktop.helpers import run_job


@pytest.fixture
def proxy(qtmodeltester, ledger, preset_name):
    first = make_jobs(ledger, preset_name, 3)
    make_jobs(ledger, preset_name, 2)
    run_job(ledger, first[1])
    model = JobTableModel(ledger)
    model.load_all()
    proxy = JobFilterProxyModel()
    proxy.setSourceModel(model)
    qtmodeltester.check(proxy)
    yield proxy
    model.stop()


def shown(proxy) -> list[str]:
    return [proxy.index(r, 0).data(JOB_ROLE).id for r in range(proxy.rowCount())]


def test_filter_by_state(proxy) -> None:
    proxy.set_states([JobState.running])
    assert len(shown(proxy)) == 1
    proxy.set_states([])
    assert len(shown(proxy)) == 5


def test_filter_by_batch(proxy) -> None:
    batch = max(proxy.index(r, 0).data(JOB_ROLE).batch for r in range(5))
    proxy.set_batch(batch)
    assert proxy.rowCount() == 2
    proxy.set_states([JobState.pending])
    assert proxy.rowCount() == 2
    proxy.set_batch(None)
    assert proxy.rowCount() == 4


def test_sort_by_state_uses_the_state_order(proxy) -> None:
    proxy.sort(Column.state, Qt.SortOrder.DescendingOrder)
    assert proxy.index(0, Column.state).data() == "Running"
