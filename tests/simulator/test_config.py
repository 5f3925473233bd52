"""Tests for simulator.config: which routes a version has, and the faults as the stats show them."""

from __future__ import annotations

from pathlib import Path

from simulator.config import FaultSettings, SimulatorConfig, version_tuple


def test_the_jobs_api_and_its_cancel_routes_come_with_newer_versions() -> None:
    assert version_tuple("0.26.1") == (0, 26, 1)
    baseline = SimulatorConfig()
    assert not baseline.has_jobs_api
    assert not baseline.has_jobs_cancel
    older = SimulatorConfig(version="0.4.0")
    assert older.has_jobs_api
    assert not older.has_jobs_cancel
    assert SimulatorConfig(version="0.38.1").has_jobs_cancel


def test_faults_say_every_setting_and_the_output_folder_is_made_once(tmp_path: Path) -> None:
    faults = FaultSettings(fail_oom=2, routes=["POST /prompt"])
    shown = faults.to_json()
    assert (shown["fail_oom"], shown["routes"]) == (2, ["POST /prompt"])
    assert set(shown) == set(FaultSettings.__dataclass_fields__)
    config = SimulatorConfig()
    made = config.resolved_output_dir()
    assert made.is_dir()
    assert config.resolved_output_dir() == made
    assert SimulatorConfig(output_dir=tmp_path).resolved_output_dir() == tmp_path
    made.rmdir()
