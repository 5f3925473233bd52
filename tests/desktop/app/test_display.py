"""Without a display `batchline gui` says so in one line and exits 2; Qt library hints."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from desktop.app.display import display_problem, missing_library_message

ROOT = Path(__file__).resolve().parents[3]


def test_no_display_on_linux() -> None:
    message = display_problem({}, "linux")
    assert message.startswith("batchline gui: no display")
    assert "QT_QPA_PLATFORM=offscreen" in message
    assert "\n" not in message


def test_offscreen_and_other_systems_are_fine() -> None:
    assert display_problem({"QT_QPA_PLATFORM": "offscreen"}, "linux") == ""
    assert display_problem({}, "win32") == ""
    assert display_problem({"WAYLAND_DISPLAY": "wayland-0"}, "linux") == ""


def test_missing_library_names_the_package() -> None:
    exc = ImportError("libEGL.so.1: cannot open shared object file: No such file or directory")
    assert missing_library_message(exc) == (
        "batchline gui: Qt needs the system library libEGL.so.1: install libegl1 "
        "(e.g. sudo apt install libegl1)"
    )


def test_gui_command_without_display_exits_2_with_one_line(tmp_path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["QT_QPA_PLATFORM"] = ""
    for argv in (["gui"], []):
        result = subprocess.run(
            [sys.executable, "-m", "cli.main", "--data-dir", str(tmp_path), *argv],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
        assert result.returncode == 2
        assert result.stderr.count("\n") == 1
        assert result.stderr.startswith("batchline gui: no display")
