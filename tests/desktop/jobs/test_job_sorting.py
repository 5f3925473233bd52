"""Sorting the jobs table: done once in the model, kept while jobs change, selections kept."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QItemSelectionModel, Qt

from core.ledger import NewJob
from desktop.jobs.job_filter_proxy import JobFilterProxyModel
from desktop.jobs.job_table_model import JOB_ROLE, Column, JobTableModel
from tests.core.helpers import run_job

ASC, DESC = Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder
SEEDS = [10, 9, 100, 2, 33]
SEED = len(Column)  # the first value column: the seed


@pytest.fixture
def jobs(ledger, preset_name) -> list[str]:
    _batch, ids = ledger.create_batch(
        preset_name, [NewJob(params={"3.seed": s}) for s in SEEDS], requester="tester"
    )
    return ids


@pytest.fixture
def proxy(qtmodeltester, ledger, jobs):
    model = JobTableModel(ledger)
    model.load_all()
    proxy = JobFilterProxyModel()
    proxy.setSourceModel(model)
    qtmodeltester.check(proxy)
    return proxy


def seeds(proxy) -> list[int]:
    return [proxy.index(r, 0).data(JOB_ROLE).params["3.seed"] for r in range(proxy.rowCount())]


def ids(proxy) -> list[str]:
    return [proxy.index(r, 0).data(JOB_ROLE).id for r in range(proxy.rowCount())]


def test_seeds_sort_as_numbers_both_ways_and_back_to_creation_order(proxy, jobs) -> None:
    proxy.sort(SEED, ASC)
    assert seeds(proxy) == [2, 9, 10, 33, 100]
    proxy.sort(SEED, DESC)
    assert seeds(proxy) == [100, 33, 10, 9, 2]
    proxy.sort(-1, ASC)
    assert ids(proxy) == jobs


def test_sort_by_job_id_descending_shows_the_newest_first(proxy, jobs) -> None:
    proxy.sort(Column.job, DESC)
    assert ids(proxy) == jobs[::-1]


def test_equal_keys_keep_creation_order(proxy, jobs) -> None:
    proxy.sort(Column.state, ASC)  # all pending
    assert ids(proxy) == jobs


def test_the_selection_stays_on_its_jobs(proxy, jobs, qtmodeltester) -> None:
    selection = QItemSelectionModel(proxy)
    flags = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
    selection.select(proxy.index(1, 0), flags)  # seed 9
    proxy.sort(SEED, DESC)
    chosen = [i.data(JOB_ROLE).params["3.seed"] for i in selection.selectedRows()]
    assert chosen == [9]
    qtmodeltester.check(proxy)


def test_a_changed_job_moves_to_its_place(proxy, jobs, ledger, qtbot) -> None:
    model = proxy.sourceModel()
    proxy.sort(Column.state, DESC)  # running first
    model.start(poll_ms=20)
    try:
        run_job(ledger, jobs[3])
        qtbot.waitUntil(lambda: ids(proxy)[0] == jobs[3], timeout=5000)
        assert sorted(ids(proxy)[1:]) == sorted(jobs[:3] + jobs[4:])
    finally:
        model.stop()


def test_new_jobs_land_in_order(proxy, ledger, preset_name, qtbot) -> None:
    model = proxy.sourceModel()
    proxy.sort(SEED, ASC)
    model.start(poll_ms=20)
    try:
        ledger.create_batch(preset_name, [NewJob(params={"3.seed": 5})], requester="tester")
        qtbot.waitUntil(lambda: seeds(proxy) == [2, 5, 9, 10, 33, 100], timeout=5000)
    finally:
        model.stop()


def test_filtering_keeps_the_sort(proxy, jobs, ledger) -> None:
    batch = proxy.index(0, 0).data(JOB_ROLE).batch
    proxy.sort(SEED, DESC)
    proxy.set_batch(batch)
    assert seeds(proxy) == [100, 33, 10, 9, 2]


def test_held_rows_keep_their_places_until_the_pointer_leaves(
    proxy, jobs, ledger, qtbot, qtmodeltester
) -> None:
    """Sorted by state, a job starting to run would move to the top under the pointer: while
    the table is held it stays, and moves once the hold ends."""
    model = proxy.sourceModel()
    proxy.sort(Column.state, DESC)  # running first
    before = ids(proxy)
    model.start(poll_ms=20)
    try:
        model.hold_order(True)
        run_job(ledger, jobs[3])
        qtbot.waitUntil(
            lambda: model.job_at(model.row_of(jobs[3])).state.value == "running", timeout=5000
        )
        qtbot.wait(model_delay(model))
        assert ids(proxy) == before, "nothing moved while held"
        model.hold_order(False)
        qtbot.waitUntil(lambda: ids(proxy)[0] == jobs[3], timeout=5000)
    finally:
        model.stop()


def test_the_view_holds_its_rows_while_the_pointer_is_over_it(window, qtbot) -> None:
    from PySide6.QtCore import QEvent, QPointF
    from PySide6.QtGui import QEnterEvent
    from PySide6.QtWidgets import QApplication

    table = window.table
    QApplication.sendEvent(table, QEnterEvent(QPointF(5, 5), QPointF(5, 5), QPointF(5, 5)))
    assert window.model._held
    assert not window.proxy.dynamicSortFilter()
    QApplication.sendEvent(table, QEvent(QEvent.Type.Leave))
    assert not window.model._held
    assert window.proxy.dynamicSortFilter()


def model_delay(model) -> int:
    """Longer than a reorder waits (RESORT_DELAY_MS)."""
    from desktop.jobs.job_table_model import RESORT_DELAY_MS

    return RESORT_DELAY_MS + 300
