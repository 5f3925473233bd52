"""Fixtures shared by this folder's test files: a real batch run on the simulator, its viewer."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.batch import BatchSpec, SeedPlan
from desktop.viewer.viewer import PictureViewer
from desktop.window.main_window import MainWindow
from simulator import SimulatorConfig
from simulator.thread import SimulatorThread
from tests.desktop.viewer.viewer_batch import SEEDS, run_batch


@pytest.fixture
def simulator(tmp_path: Path):
    thread = SimulatorThread(SimulatorConfig(job_seconds=0.02, output_dir=tmp_path / "sim"))
    thread.start()
    yield thread
    thread.stop()


@pytest.fixture
def batch(qloop, window: MainWindow, ledger, simulator, preset_name, tmp_path) -> list[str]:
    """Three finished jobs, seeds 700-702, their pictures downloaded under tmp_path/out."""
    spec = BatchSpec(seeds=SeedPlan(count=3, start=SEEDS[0]), overrides={"3.steps": 7})
    return run_batch(qloop, ledger, simulator, preset_name, spec, tmp_path / "out")


@pytest.fixture
def viewer(qtbot, window: MainWindow, batch: list[str]) -> PictureViewer:
    window.model.refresh()
    window.select_job(batch[0])
    window.table.activated.emit(window.table.currentIndex())  # Enter / double-click on the row
    viewer = window.viewer
    assert viewer is not None
    qtbot.waitExposed(viewer)
    qtbot.waitUntil(viewer.canvas.has_picture)
    return viewer
