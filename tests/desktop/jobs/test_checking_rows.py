"""After a relaunch, queued and running rows say "checking…" until the controller has asked
ComfyUI about them, then the real state."""

from __future__ import annotations

from PySide6.QtCore import Qt

from core.controller.status import ControllerStatus
from core.job_state import JobState
from core.ledger import Ledger
from desktop.app.session import Session, SessionOptions
from desktop.jobs.job_states import state_label
from desktop.jobs.job_table_model import CHECKING, CHECKING_TIP, Column
from desktop.presets.preset_files import add_preset_file
from tests.core.helpers import run_job
from tests.desktop.background_helpers import until
from tests.desktop.conftest import TXT2IMG, make_jobs

TIP = Qt.ItemDataRole.ToolTipRole


def test_rows_from_before_the_controller_started_wait_for_the_server(
    model, ledger, preset_name
) -> None:
    stale, pending = make_jobs(ledger, preset_name, 2)
    run_job(ledger, stale)
    model.load_all()
    state = model.index(model.row_of(stale), Column.state)
    assert state.data() == "Running", "no status yet: the ledger's word"
    started = ledger.job(stale).updated_at + 1
    model.set_status(ControllerStatus(started_at=started))
    assert state.data() == CHECKING
    assert state.data(TIP) == CHECKING_TIP
    assert state.data(Qt.ItemDataRole.BackgroundRole) is None
    assert model.index(model.row_of(pending), Column.state).data() == "Pending"
    model.set_status(ControllerStatus(started_at=started, positions={stale: 0}))
    assert state.data() == "Running", "in ComfyUI's queue: confirmed"
    model.set_status(ControllerStatus(started_at=started, stopped="no controller is running"))
    assert state.data() == "Running", "no controller to ask: the ledger's word"
    model.set_status(ControllerStatus(started_at=ledger.job(stale).updated_at))
    assert state.data() == "Running", "written by this controller: current"


def test_a_relaunched_window_says_checking_until_a_slow_server_answers(
    qloop, home, slow_sim
) -> None:
    """A job left running by an earlier controller; on relaunch the background controller
    starts, and the server takes 2 s to answer its first look at the queue."""
    with Ledger(home) as ledger:
        preset = add_preset_file(ledger, TXT2IMG).name
        assert preset
        (stale,) = make_jobs(ledger, preset, 1)
        run_job(ledger, stale)  # this server never heard of it: the controller finds out
    slow_sim.set_faults(delay_seconds=2.0, routes=["GET /queue"])

    async def scenario() -> None:
        session = Session(SessionOptions(data_dir=home))
        window = await session.open()
        try:
            model = window.model
            await until(lambda: model.row_of(stale) is not None)
            state = model.index(model.row_of(stale), Column.state)
            await until(lambda: state.data() == CHECKING, about=state.data)
            assert state.data(TIP) == CHECKING_TIP
            await until(lambda: state.data() != CHECKING, about=state.data)
            job = model.job_at(model.row_of(stale))
            assert state.data() == state_label(job.state)
            assert job.state is not JobState.running or job.attempt > 1, "the server's word"
        finally:
            window.quit_all_action.trigger()
            await session.close("quit_all")

    qloop.run_until_complete(scenario())
