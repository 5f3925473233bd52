"""`make run`'s first install says what it is doing before its quiet minute of pip."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_the_first_run_says_it_is_installing_before_it_installs() -> None:
    # -n prints the recipe without running it; -W treats pyproject.toml as just changed
    plan = subprocess.run(
        # no "Entering/Leaving directory" lines when this runs inside `make test`
        ["make", "--no-print-directory", "-n", "-W", "pyproject.toml", "run"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    ).stdout.splitlines()
    install = next(i for i, line in enumerate(plan) if "pip install" in line)
    said = [line for line in plan[:install] if line.startswith("echo ")]
    assert said, plan
    assert "installing its packages" in said[-1]
    assert plan[-1].endswith("/batchline")
    assert any("Starting Batchline" in line for line in plan[install:])
