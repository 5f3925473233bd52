"""The jobs table model: follows the ledger's feed, merges status, passes the model tester."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from core.controller.client import NOT_RUNNING
from core.controller.status import Connection, ControllerStatus, Progress
from core.job_state import JobState
from desktop.jobs.job_table_model import JOB_ROLE, PROGRESS_ROLE, Column, JobTableModel, values_text
from tests.core.helpers import run_job, succeed
from tests.core.ledger.test_handle import statements
from tests.desktop.conftest import make_jobs


@pytest.fixture
def model(qtmodeltester, ledger, preset_name):
    model = JobTableModel(ledger, chunk=7)
    qtmodeltester.check(model)
    yield model
    model.stop()


def test_feed_inserts_jobs_in_chunks(model, ledger, preset_name) -> None:
    ids = make_jobs(ledger, preset_name, 20)
    assert model.read_chunk() == 7
    assert model.rowCount() == 7
    assert model.canFetchMore(model.index(0, 0).parent())
    model.load_all()
    assert model.rowCount() == 20
    assert [model.job_at(r).id for r in range(20)] == ids
    assert not model.loading


def test_state_change_updates_the_row(model, ledger, preset_name, qtbot) -> None:
    ids = make_jobs(ledger, preset_name, 3)
    model.load_all()
    ledger.request_cancel(ids[1])
    with qtbot.waitSignal(model.dataChanged) as blocker:
        model.load_all()
    assert blocker.args[0].row() == 1
    index = model.index(1, Column.state)
    assert index.data() == "Cancelled"
    assert index.data(JOB_ROLE).state is JobState.cancelled
    assert index.data(Qt.ItemDataRole.BackgroundRole) is not None
    assert model.rowCount() == 3


def test_status_gives_positions_and_progress(model, ledger, preset_name) -> None:
    ids = make_jobs(ledger, preset_name, 3)
    model.load_all()
    model.set_status(
        ControllerStatus(positions={ids[0]: 0, ids[1]: 1}, progress={ids[0]: Progress(5, 20)})
    )
    assert model.index(0, Column.position).data() == "running"
    assert model.index(1, Column.position).data() == "1"
    assert model.index(0, Column.progress).data() == "5/20"
    assert model.index(0, Column.progress).data(PROGRESS_ROLE) == 0.25
    model.set_status(ControllerStatus())
    assert model.index(0, Column.progress).data() == ""


def test_a_stalled_job_is_marked(model, ledger, preset_name, qtbot) -> None:
    ids = make_jobs(ledger, preset_name, 2)
    model.load_all()
    with qtbot.waitSignal(model.dataChanged):
        model.set_status(ControllerStatus(positions={ids[0]: 0}, stalled=frozenset({ids[0]})))
    assert model.index(0, Column.position).data() == "stalled"
    assert model.index(0, Column.warning).data() == "⚠"
    assert "ComfyUI may be stuck" in model.index(0, Column.warning).data(
        Qt.ItemDataRole.ToolTipRole
    )
    assert model.index(1, Column.warning).data() == ""
    model.set_status(ControllerStatus(positions={ids[0]: 0}))
    assert model.index(0, Column.position).data() == "running"
    assert model.index(0, Column.warning).data() == ""


def test_values_text_names_inputs() -> None:
    assert values_text({"3.seed": 5}) == "seed=5"
    assert values_text({"3.seed": 5, "6.seed": 6}) == "3.seed=5, 6.seed=6"


def test_headers_follow_the_column_enum(model) -> None:
    assert model.columnCount() == len(Column)
    assert model.headerData(Column.state, Qt.Orientation.Horizontal, 0) == "State"


def test_hundred_thousand_jobs_stay_fluid(ledger, preset_name) -> None:
    """Counted, not timed: the window shows after one chunk of the backlog (a statement or two,
    a thousand rows, not all 100,000 jobs), and 10,000 data() calls read nothing from the
    ledger: the model answers from what it holds."""
    make_jobs(ledger, preset_name, 100_000)
    ran = statements(ledger)
    model = JobTableModel(ledger, chunk=1000)
    model.read_chunk()
    assert (model.rowCount(), model.loading) == (1000, True)
    assert 0 < len(ran) <= 3, ran
    model.load_all()
    assert model.rowCount() == 100_000
    ran.clear()
    for row in range(0, 100_000, 100):
        for column in Column:
            model.index(row, column).data()
    assert ran == [], "data() went to the ledger"


def test_rows_end_in_creation_order_after_the_backlog(model, ledger, preset_name) -> None:
    ids = make_jobs(ledger, preset_name, 20)
    ledger.request_cancel(ids[0])  # now last in the change feed
    model.load_all()
    assert [model.job_at(r).id for r in range(20)] == ids
    assert model.row_of(ids[0]) == 0


def test_pending_rows_say_why_they_wait(model, ledger, preset_name) -> None:
    ids = make_jobs(ledger, preset_name, 2)
    ledger.request_cancel(ids[1])
    model.load_all()
    pending, cancelled = model.index(0, Column.position), model.index(1, Column.position)
    assert pending.data() == ""
    offline = ControllerStatus(
        connection=Connection.offline, server="http://gpu:8188", last_error="connection refused"
    )
    model.set_status(offline)
    assert pending.data() == "waiting for the server"
    assert model.index(0, Column.state).data(Qt.ItemDataRole.ToolTipRole) == (
        "Waiting for the server: gpu:8188 does not answer (connection refused). The job is "
        "sent when it answers again."
    )
    assert cancelled.data() == "", "only pending jobs wait"
    model.set_status(ControllerStatus(connection=Connection.offline, stopped=NOT_RUNNING))
    assert pending.data() == "controller stopped"
    assert NOT_RUNNING in model.index(0, Column.state).data(Qt.ItemDataRole.ToolTipRole)
    model.set_status(ControllerStatus(connection=Connection.connected, paused=True))
    assert pending.data() == "dispatch paused"
    model.set_status(ControllerStatus(connection=Connection.connected))
    assert pending.data() == ""
    assert model.index(0, Column.state).data(Qt.ItemDataRole.ToolTipRole) is None


def test_a_job_faster_than_a_second_shows_its_time(model, ledger, preset_name) -> None:
    (job_id,) = make_jobs(ledger, preset_name, 1)
    prompt_id = run_job(ledger, job_id)
    succeed(ledger, prompt_id, [], times=(1000.0, 1000.4))
    model.load_all()
    assert model.index(0, Column.elapsed).data() == "0.4 s"


def test_the_warning_column_explains_itself(model, ledger, preset_name) -> None:
    ids = make_jobs(ledger, preset_name, 2)
    ledger.submit_attempt(ids[0], "p-warn", "http://127.0.0.1:9", "hash")
    ledger.observe_queued("p-warn", 1, "ComfyUI dropped output node(s) 9: no images")
    model.load_all()
    tip = Qt.ItemDataRole.ToolTipRole
    header = model.headerData(Column.warning, Qt.Orientation.Horizontal, tip)
    assert "stall limit" in header
    assert "dropped" in header
    warned, other = (model.index(model.row_of(i), Column.warning) for i in ids)
    assert warned.data() == "⚠"
    assert warned.data(tip) == (
        "ComfyUI took the job with a warning: ComfyUI dropped output node(s) 9: no images"
    )
    assert other.data(tip) is None
