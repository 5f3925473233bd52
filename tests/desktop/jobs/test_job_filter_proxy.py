"""Filtering by state and batch, and sorting by raw values."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from core.job_state import JobState
from desktop.jobs.job_filter_proxy import JobFilterProxyModel
from desktop.jobs.job_table_model import JOB_ROLE, Column, JobTableModel
from tests.core.helpers import run_job
from tests.desktop.conftest import make_jobs


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


def test_jobs_let_through_show_whatever_the_filter(proxy) -> None:
    """The picture sheet's selection: shown in the table, filtered out or not."""
    proxy.set_states([JobState.running])
    model = proxy.sourceModel()
    pending = model.job_at(0).id
    proxy.let_through([pending])
    assert pending in shown(proxy)
    assert len(shown(proxy)) == 2
    proxy.let_through([])
    assert len(shown(proxy)) == 1


def test_held_a_changed_job_stays_until_the_hold_ends(proxy, ledger, qtbot) -> None:
    """The pointer over the table: the running job that finishes stays under it."""
    from tests.core.helpers import succeed

    model = proxy.sourceModel()
    proxy.set_states([JobState.running])
    (running,) = shown(proxy)
    proxy.hold(True)
    model.hold_order(True)
    prompt = next(a.prompt_id for a in ledger.attempts(running))
    succeed(ledger, prompt, [])
    model.read_chunk()
    assert model.job_at(model.row_of(running)).state is JobState.succeeded
    assert shown(proxy) == [running], "held: it stays where the pointer is"
    proxy.hold(False)
    model.hold_order(False)
    assert shown(proxy) == [], "the hold over: filtered out"
