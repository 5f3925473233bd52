"""Tests for cli.simulate_cmd: `batchline simulate`, its options made a config, its banner."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from cli.main import build_parser
from cli.simulate_cmd import config_from_args
from tests.simulator.sim_helpers import fetch


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
    assert config.max_upload_size == 100 * 1024 * 1024  # ComfyUI's default


def test_the_upload_limit_is_given_in_mb_as_comfyuis() -> None:
    args = build_parser().parse_args(["simulate", "--max-upload-size", "0.5"])
    assert config_from_args(args).max_upload_size == 512 * 1024


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
