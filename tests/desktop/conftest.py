"""Desktop test fixtures: a ledger in tmp_path with a sample preset, a fake controller."""

from __future__ import annotations

import asyncio
import shutil
import sys
import time
from pathlib import Path

import pytest
import qasync

from core.ledger import Ledger, NewJob
from core.ledger.settings import Settings
from desktop.app.main_thread_gc import MainThreadCollector
from desktop.common.thumbnails import ThumbnailLoader
from desktop.jobs.job_table_model import JobTableModel
from desktop.presets.preset_files import add_preset_file
from simulator import SimulatorConfig
from simulator.thread import SimulatorThread
from tests.desktop.background_helpers import FAST, ledger_free
from tests.desktop.fakes import FakeController
from tests.leaks import tasks_left

RESOURCES = Path(__file__).resolve().parents[2] / "resources" / "presets"
TXT2IMG = RESOURCES / "Portrait txt2img (SD 1.5).json"
GRADIENT = RESOURCES / "Soft gradient (model-free).json"


@pytest.fixture(autouse=True)
def loop_policy_as_the_app_runs():
    """As `qasync.run` does on Python 3.11 (3.12 on passes a loop factory instead): every new
    event loop is a qasync loop, also one that a worker thread starts with `asyncio.run`."""
    if sys.version_info >= (3, 12):
        yield
        return
    old = asyncio.get_event_loop_policy()
    asyncio.set_event_loop_policy(qasync.DefaultQEventLoopPolicy())
    yield
    asyncio.set_event_loop_policy(old)


@pytest.fixture(autouse=True)
def collect_on_the_gui_thread(qapp):
    """As the app does: no garbage collection in the simulator's or a worker's thread."""
    collector = MainThreadCollector(parent=qapp)
    collector.start()
    yield
    collector.stop()
    collector.deleteLater()


@pytest.fixture
def qloop(qapp):
    """A qasync loop on the Qt event loop, as the app runs (never pytest-asyncio's loop); the
    test fails if it leaves tasks running on it."""
    qapp.setQuitOnLastWindowClosed(
        False
    )  # as desktop.app.app does: the session decides when to quit
    loop = qasync.QEventLoop(qapp)
    asyncio.set_event_loop(loop)
    yield loop
    left = tasks_left(loop)
    loop.close()
    asyncio.set_event_loop(None)
    qapp.setQuitOnLastWindowClosed(True)
    assert not left, "asyncio tasks left running after the test:\n" + "\n".join(left)


@pytest.fixture
def ledger(tmp_path: Path):
    with Ledger(tmp_path / "ledger") as ledger:
        yield ledger


@pytest.fixture
def preset_name(ledger: Ledger) -> str:
    result = add_preset_file(ledger, TXT2IMG)
    assert result.name, result.error
    return result.name


@pytest.fixture
def thumbnails(qapp, tmp_path: Path):
    loader = ThumbnailLoader(tmp_path / "thumbs")
    yield loader
    loader.shutdown()


@pytest.fixture
def model(qtmodeltester, ledger: Ledger):
    """A jobs table model over the ledger, checked by Qt's model tester."""
    model = JobTableModel(ledger)
    qtmodeltester.check(model)
    yield model
    model.stop()


@pytest.fixture
def controller(ledger: Ledger) -> FakeController:
    return FakeController(ledger)


@pytest.fixture
def window(qtbot, ledger, controller, preset_name, tmp_path):
    """The main window over the ledger and a fake controller, started."""
    from desktop.window.main_window import MainWindow

    window = MainWindow(ledger, controller, thumbnail_dir=tmp_path / "thumbs")
    qtbot.addWidget(window)
    window.start()
    yield window
    window.close()


@pytest.fixture
def preset_copy(tmp_path: Path) -> Path:
    target = tmp_path / "fox.json"
    shutil.copy(TXT2IMG, target)
    return target


def make_jobs(ledger: Ledger, preset: str, count: int) -> list[str]:
    jobs = [NewJob(params={"3.seed": i}) for i in range(count)]
    _batch, ids = ledger.create_batch(preset, jobs, requester="tester")
    return ids


@pytest.fixture
def slow_sim(tmp_path: Path):
    thread = SimulatorThread(SimulatorConfig(job_seconds=0.7, output_dir=tmp_path / "sim"))
    thread.start()
    yield thread
    thread.stop()


@pytest.fixture
def home(tmp_path: Path, slow_sim: SimulatorThread):
    """The artist's data folder, set to the simulator; no controller is left running after."""
    folder = tmp_path / "home"
    with Ledger(folder) as ledger:
        Settings(slow_sim.url, tmp_path / "pictures", FAST).save(ledger)
    yield folder
    with Ledger(folder) as ledger:
        if not ledger_free(ledger):
            ledger.controller_runs.request_stop()
            deadline = time.monotonic() + 15
            while not ledger_free(ledger) and time.monotonic() < deadline:
                time.sleep(0.05)
