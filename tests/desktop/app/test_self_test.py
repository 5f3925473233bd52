"""`batchline --self-test` in a subprocess: the JSON report, and non-zero exits with a reason."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.ledger import Ledger
from desktop.app import demo, self_test

ROOT = Path(__file__).resolve().parents[3]


def self_test_run(
    tmp_path: Path, *options: str, **env: str
) -> tuple[subprocess.CompletedProcess[str], dict]:
    """Run the self-test as the bundle would; the process and the report on its last line."""
    environ = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "BATCHLINE_HOME": str(tmp_path)}
    environ.update(env)
    command = [sys.executable, "-m", "cli.main", "--self-test", *options]
    result = subprocess.run(
        command, cwd=ROOT, env=environ, capture_output=True, text=True, timeout=90, check=False
    )
    lines = result.stdout.strip().splitlines()
    assert lines, result.stderr
    return result, json.loads(lines[-1])


def test_self_test_runs_jobs_and_the_window(tmp_path: Path) -> None:
    path = tmp_path / "reports" / "self-test.json"
    result, report = self_test_run(tmp_path, "--report", str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert report["ok"] is True
    assert (report["jobs"], report["succeeded"]) == (3, 3)
    assert report["platform"] == "offscreen"
    assert report["qt"].startswith("6.")
    assert report["preset_source"] == "resources"
    assert report["thumbnail"][0] > 0
    assert report["thumbnail"][1] > 0
    assert report["window"] == [1200, 760]
    assert "Demo server" in report["window_title"]
    assert report["single_window"] is True
    assert report["keyring"]
    assert 0 < report["timings"]["window_s"] < report["seconds"]
    assert json.loads(path.read_text(encoding="utf-8")) == report
    assert result.stderr == ""


def test_an_unwritable_report_fails_with_the_reason(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    result, report = self_test_run(tmp_path, "--report", str(blocker / "report.json"))
    assert result.returncode == 1
    assert report["ok"] is False
    assert report["error"].startswith(f"cannot write the report to {blocker / 'report.json'}")
    assert "batchline --self-test failed at report: cannot write" in result.stderr


def test_a_hang_becomes_a_timeout_exit(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    result, report = self_test_run(
        tmp_path, "--report", str(path), BATCHLINE_SELF_TEST_TIMEOUT="0.2"
    )
    assert result.returncode == self_test.EXIT_TIMEOUT
    assert report["ok"] is False
    assert report["error"] == "timed out after 0.2 s"
    assert json.loads(path.read_text(encoding="utf-8"))["error"] == report["error"]
    assert "timed out after 0.2 s" in result.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11/Wayland displays")
def test_no_display_fails_with_the_reason(tmp_path: Path) -> None:
    result, report = self_test_run(tmp_path, QT_QPA_PLATFORM="", DISPLAY="", WAYLAND_DISPLAY="")
    assert result.returncode == self_test.EXIT_USAGE
    assert report["error"].startswith("no display")
    assert "failed at start: no display" in result.stderr


def test_the_built_in_workflow_when_resources_are_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(demo, "SAMPLE_PRESETS", tmp_path / "missing")
    with Ledger(tmp_path / "ledger") as ledger:
        name, source = self_test.add_preset(ledger, tmp_path)
        job_ids = self_test.queue_jobs(ledger, name)
        seeds = {ledger.job(job_id).params["2.seed"] for job_id in job_ids}
    assert source == "built-in"
    assert len(seeds) == 3


def test_help_lists_the_self_test() -> None:
    from cli.main import build_parser

    text = build_parser().format_help()
    assert "--self-test" in text
    assert "--report PATH" in text
