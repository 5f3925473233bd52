"""Tests for simulator.thread: a simulator in its own thread and loop, serving and taking faults."""

from __future__ import annotations

import time
from pathlib import Path

from simulator import SimulatorConfig
from simulator.thread import SimulatorThread
from tests.simulator.sim_helpers import fetch, quick


def test_simulator_thread_serves_and_takes_faults_thread_safely(tmp_path: Path) -> None:
    thread = SimulatorThread(SimulatorConfig(job_seconds=0.01, output_dir=tmp_path))
    url = thread.start()
    try:
        thread.fail_next(1, "oom")
        assert thread.stats()["faults"]["fail_oom"] == 1
        answer = fetch(url + "/prompt", {"prompt": quick(0, "t", 8)})
        prompt_id = str(answer["prompt_id"])
        deadline = time.monotonic() + 10
        while not fetch(f"{url}/history/{prompt_id}") and time.monotonic() < deadline:
            time.sleep(0.01)
        assert thread.execution_count(prompt_id) == 1
        thread.restart()
        assert fetch(url + "/queue") == {"queue_running": [], "queue_pending": []}
    finally:
        thread.stop()


def test_simulator_thread_reports_uploads_and_wipes_the_input_folder(tmp_path: Path) -> None:
    thread = SimulatorThread(SimulatorConfig(job_seconds=0.01, output_dir=tmp_path))
    thread.start()
    try:
        folder = thread.call(lambda sim: sim.input_dir)
        (folder / "a.png").write_bytes(b"x")
        assert thread.upload_stats() == {"uploads": 0, "names": {}}
        assert thread.inputs_read() == {}
        assert thread.wipe_input() == 2  # and ComfyUI's example.png
        assert list(folder.iterdir()) == []
    finally:
        thread.stop()
