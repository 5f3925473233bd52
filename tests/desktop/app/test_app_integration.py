"""Acceptance: the real window, the real controller and the simulator, on a qasync loop.

Drop a preset file, compose and queue a batch, watch states change, cancel a queued and a
running job, retry a failed one. Each test runs one coroutine with run_until_complete on a
qasync.QEventLoop, never pytest-asyncio's loop."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from core.comfy import ComfyClient
from core.controller import Controller, ControllerConfig
from core.controller.published import APP
from core.job_state import JobState
from core.ledger import Ledger
from core.ledger.settings import Settings
from desktop.app.session import Session, SessionOptions
from desktop.settings.settings_dialog import SettingsDialog
from desktop.window.main_window import MainWindow
from simulator import SimulatorConfig
from simulator.thread import SimulatorThread
from tests.desktop.background_helpers import background_controller, ledger_free, until
from tests.desktop.helpers import StubDropEvent

if TYPE_CHECKING:
    pass


FAST = ControllerConfig(poll_active_s=0.05, poll_idle_s=0.2, grace_s=0.5)


@pytest.fixture
def simulator(tmp_path):
    # Jobs long enough (1.5 s) for the test to cancel one while it runs.
    thread = SimulatorThread(SimulatorConfig(job_seconds=1.5, output_dir=tmp_path / "sim"))
    thread.start()
    yield thread
    thread.stop()


def state(window: MainWindow, job_id: str) -> JobState:
    row = window.model.row_of(job_id)
    assert row is not None
    return window.model.job_at(row).state


async def drive(window: MainWindow, sim: SimulatorThread, preset_file) -> None:
    window.dropEvent(StubDropEvent([preset_file]))
    assert window.presets.current_name() == "fox"
    sim.fail_next(1, "error")  # the first job fails for good
    window.composer.seeds.count.setValue(5)
    window.composer.queue_button.click()
    await until(lambda: window.model.rowCount() == 5)
    ids = [window.model.job_at(r).id for r in range(5)]
    failing, running, queued = ids[0], ids[1], ids[2]
    await until(lambda: state(window, failing) is JobState.failed)
    await until(lambda: state(window, running) is JobState.running)
    await until(lambda: state(window, queued) is JobState.queued)
    assert window.status.connection.text().startswith("● Connected to 127.0.0.1:")
    for job_id in (queued, running):
        window.select_job(job_id)
        assert window.job_actions.cancel.isEnabled()
        window.job_actions.cancel.trigger()
    await until(lambda: state(window, running) is not JobState.running)
    assert not window.job_actions.cancel.isEnabled()  # cancelling, or already cancelled
    await until(lambda: state(window, running) is JobState.cancelled)
    await until(lambda: state(window, queued) is JobState.cancelled)
    window.select_job(failing)
    assert window.job_actions.retry.isEnabled()
    window.job_actions.retry.trigger()
    final = [JobState.succeeded, JobState.cancelled, JobState.cancelled, *[JobState.succeeded] * 2]
    await until(
        lambda: [state(window, i) for i in ids] == final,
        about=lambda: [state(window, i) for i in ids],
    )
    assert window.model.job_at(window.model.row_of(failing)).attempt == 2


def test_artist_flow_against_the_simulator(
    qtbot, qloop, simulator, ledger, preset_copy, tmp_path
) -> None:
    async def scenario() -> None:
        client = ComfyClient(simulator.url)
        controller = Controller(ledger, client, config=FAST, output_dir=tmp_path / "out")
        window = MainWindow(ledger, controller, thumbnail_dir=tmp_path / "thumbs")
        qtbot.addWidget(window)
        window.start()
        await controller.start()
        try:
            await drive(window, simulator, preset_copy)
            window.select_job(window.model.job_at(3).id)  # a succeeded job shows its image
            await until(lambda: window.details.outputs.rowCount() == 1)
        finally:
            window.close()
            await controller.stop()
            await client.aclose()

    qloop.run_until_complete(scenario())


def test_demo_session_runs_the_sample_presets(qtbot, qloop, tmp_path) -> None:
    async def scenario() -> None:
        options = SessionOptions(data_dir=tmp_path / "home", demo=True, demo_job_seconds=0.2)
        session = Session(options)
        window = await session.open()
        try:
            assert window.demo
            assert window.status.demo
            assert "Demo server" in window.windowTitle()
            assert (tmp_path / "home" / "demo" / "ledger.sqlite3").exists()
            running = await background_controller(session)
            assert running.origin == APP
            assert not running.status.server.endswith(":8188")
            window.presets.select("Soft gradient (model-free)")
            window.composer.seeds.count.setValue(2)
            window.composer.seeds.step.setValue(500000)
            window.composer.queue_button.click()
            await until(lambda: window.model.rowCount() == 2)
            done = {JobState.succeeded}
            await until(lambda: {j.state for j in window.model.jobs()} == done)
        finally:
            await session.close()
        with Ledger(tmp_path / "home" / "demo") as demo:  # nothing left: the app stopped it
            assert ledger_free(demo)

    qloop.run_until_complete(scenario())


def test_connect_to_a_real_comfyui_leaves_the_demo(
    qtbot, qloop, simulator, tmp_path, monkeypatch
) -> None:
    """One click in the demo: the settings of the real ledger, then a session on that server."""

    def ask(cls, ledger, parent=None, commands=None):
        settings = Settings(simulator.url, tmp_path / "pictures", FAST)
        settings.save(ledger)
        return settings

    monkeypatch.setattr(SettingsDialog, "ask", classmethod(ask))
    options = SessionOptions(data_dir=tmp_path / "home", demo=True, demo_job_seconds=0.2)

    async def scenario() -> str:
        demo = Session(options)
        window = await demo.open()
        window.connect_action.trigger()
        how = await demo.finished
        await demo.close()
        real = Session(options)
        window = await real.open()
        try:
            assert not window.demo
            running = await background_controller(real)
            assert running.status.server == simulator.url
            assert real.ledger is not None
            assert real.ledger.folder == tmp_path / "home"
        finally:
            await real.close()
        return how

    assert qloop.run_until_complete(scenario()) == "restart"


def test_a_session_on_several_servers_runs_jobs_on_each(qloop, tmp_path, preset_copy) -> None:
    sims = [
        SimulatorThread(SimulatorConfig(job_seconds=0.2, output_dir=tmp_path / f"s{i}"))
        for i in range(2)
    ]
    for sim in sims:
        sim.start()
    options = SessionOptions(data_dir=tmp_path / "home", server=f"{sims[0].url},{sims[1].url}")

    async def scenario() -> set[str]:
        session = Session(options)
        window = await session.open()
        try:
            running = await background_controller(session)
            assert [s.server for s in running.status.servers] == [s.url for s in sims]
            window.dropEvent(StubDropEvent([preset_copy]))
            window.composer.seeds.count.setValue(6)
            window.composer.queue_button.click()
            await until(lambda: window.model.rowCount() == 6)
            ids = [window.model.job_at(r).id for r in range(6)]
            await until(lambda: all(state(window, i) is JobState.succeeded for i in ids))
            await until(lambda: window.status.connection.text() == "● Connected to 2 servers")
            assert session.ledger is not None
            return {session.ledger.attempts(i)[-1].server for i in ids}
        finally:
            await session.close()

    try:
        assert qloop.run_until_complete(scenario()) == {s.url for s in sims}
    finally:
        for sim in sims:
            sim.stop()
