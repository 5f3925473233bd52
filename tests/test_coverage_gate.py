"""The coverage gate: per package, with branches, never padded by another package."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.coverage_gate import check, main


def measured(lines: int, covered: int, branches: int = 0, covered_branches: int = 0) -> Any:
    return {
        "summary": {
            "num_statements": lines,
            "covered_lines": covered,
            "num_branches": branches,
            "covered_branches": covered_branches,
        }
    }


def report(files: dict[str, Any], branches: bool = True) -> dict[str, Any]:
    return {"meta": {"branch_coverage": branches}, "files": files}


WELL_COVERED = {
    "core/ledger/ledger.py": measured(100, 100, 20, 20),
    "core/controller/controller.py": measured(100, 99, 20, 20),
    "core/comfy/client.py": measured(100, 96, 0, 0),
}


def test_every_package_at_its_gate_passes() -> None:
    lines = check(report(WELL_COVERED))
    assert all(line.endswith(": ok") for line in lines), lines
    assert "core/controller: 99.17 % (at least 95 %): ok" in lines


def test_a_weak_package_fails_however_well_the_simulator_is_covered() -> None:
    files = {
        **WELL_COVERED,
        "core/ledger/ledger.py": measured(100, 100, 20, 10),  # 91.67 %: uncovered branches
        "simulator/simulator.py": measured(10_000, 10_000, 2_000, 2_000),
    }
    lines = check(report(files))
    assert "core/ledger: 91.67 % (at least 95 %): FAIL" in lines
    assert "core/controller: 99.17 % (at least 95 %): ok" in lines
    assert lines[-1] == "everything measured: 99.88 % (at least 90 %): ok"


def test_a_package_with_no_file_measured_fails() -> None:
    files = {k: v for k, v in WELL_COVERED.items() if not k.startswith("core/comfy/")}
    assert "core/comfy: no file measured: FAIL" in check(report(files))


def test_a_report_without_branches_fails() -> None:
    assert check(report(WELL_COVERED, branches=False)) == [
        "coverage was measured without branches: FAIL"
    ]


def test_the_exit_status_follows_the_gates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(report(WELL_COVERED)))
    bad.write_text(json.dumps(report({"core/ledger/ledger.py": measured(10, 1)})))
    assert main(["gate", str(good)]) == 0
    assert main(["gate", str(bad)]) == 1
    assert main(["gate", str(tmp_path / "missing.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"coverage gate: cannot read the coverage report {tmp_path}/missing.json")
    assert "\n" not in err
