"""SimulatorThread (own loop in a thread) and the `batchline simulate` command."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from cli.main import build_parser
from cli.simulate_cmd import config_from_args
from simulator import SimulatorConfig
from simulator.simulator import check_loopback
from simulator.thread import SimulatorThread
from tests.simulator.sim_helpers import quick


def fetch(url: str, body: dict[str, object] | None = None) -> dict[str, object]:
    data = json.dumps(body).encode() if body is not None else None
    with urllib.request.urlopen(urllib.request.Request(url, data=data), timeout=10) as response:
        result: dict[str, object] = json.loads(response.read())
        return result


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


def test_only_loopback_addresses_are_allowed() -> None:
    for host in ("127.0.0.1", "::1", "localhost"):
        check_loopback(host)
    with pytest.raises(ValueError, match="loopback"):
        check_loopback("0.0.0.0")


def test_cli_options_become_a_config(tmp_path: Path) -> None:
    args = build_parser().parse_args([
        "simulate", "--port", "0", "--version", "0.38.1", "--token", "t", "--fail-oom", "2",
        "--error-rate", "0.25", "--fault-route", "POST /prompt", "--output-dir", str(tmp_path),
    ])  # fmt: skip
    config = config_from_args(args)
    assert (config.version, config.token, config.output_dir) == ("0.38.1", "t", tmp_path)
    assert config.faults.fail_oom == 2
    assert config.faults.error_rate == 0.25
    assert config.faults.routes == ["POST /prompt"]
    assert config.has_jobs_api


def test_batchline_simulate_prints_a_banner_and_serves(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "cli.main", "simulate", "--port", "0",
               "--output-dir", str(tmp_path)]  # fmt: skip
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as process:
        try:
            assert process.stdout is not None
            banner = process.stdout.readline()
            assert banner.startswith("Batchline simulated ComfyUI 0.3.64 — not a real ComfyUI")
            url = banner.rsplit("listening on ", 1)[1].split()[0]
            assert fetch(url + "/prompt") == {"exec_info": {"queue_remaining": 0}}
        finally:
            process.terminate()
            process.wait(10)
