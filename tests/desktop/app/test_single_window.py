"""One window per data folder: a later launch brings the open window forward and ends."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from core.ledger import Ledger
from desktop.app import single_window
from desktop.app.single_window import WindowBeacon, beacon_name, hand_over

ROOT = Path(__file__).resolve().parents[3]
ASK = "import sys; from pathlib import Path; from desktop.app.single_window import hand_over; "
ASK += "print(hand_over(Path(sys.argv[1])))"


def _ask_from_another_process(folder: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", ASK, str(folder)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )


def test_a_later_launch_asks_the_open_window_forward(qtbot: QtBot, tmp_path: Path) -> None:
    beacon = WindowBeacon(tmp_path)
    assert beacon.listen()
    asked: list[bool] = []
    beacon.show_requested.connect(lambda: asked.append(True))
    later = _ask_from_another_process(tmp_path)
    qtbot.waitUntil(lambda: later.poll() is not None, timeout=15_000)
    beacon.close()
    out, _ = later.communicate()
    assert out.strip() == "True"
    assert asked == [True]


@pytest.mark.timeout(30)
def test_with_no_window_open_a_launch_opens_its_own(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nobody listens: the launch does not wait for an answer (the wait made a minute here, so
    waiting would outlast the test's 30 s timeout)."""
    monkeypatch.setattr(single_window, "ANSWER_MS", 60_000)
    assert not hand_over(tmp_path)
    other = WindowBeacon(tmp_path / "elsewhere")
    assert other.listen()  # a window on another data folder is not asked
    assert not hand_over(tmp_path)
    other.close()


def test_a_socket_a_crashed_window_left_does_not_stop_the_next(
    qtbot: QtBot, tmp_path: Path
) -> None:
    if not hasattr(socket, "AF_UNIX"):
        return
    stale = Path("/tmp") / beacon_name(tmp_path)  # where Qt puts a named local socket
    left = socket.socket(socket.AF_UNIX)
    left.bind(str(stale))  # bound, never listened on nor removed: what a killed window leaves
    left.close()
    assert not hand_over(tmp_path)
    beacon = WindowBeacon(tmp_path)
    assert beacon.listen()
    beacon.close()


def test_launching_the_app_twice_brings_the_first_window_forward(tmp_path: Path) -> None:
    env = {**os.environ, "BATCHLINE_HOME": str(tmp_path), "QT_QPA_PLATFORM": "offscreen"}
    command = [sys.executable, "-m", "cli", "gui", "--demo"]
    first = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while (pid := _demo_controller(tmp_path)) is None:
            assert first.poll() is None, "the first window ended"
            assert time.monotonic() < deadline, "the first window did not start its controller"
            time.sleep(0.2)
        second = subprocess.run(
            command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=30
        )
        assert second.returncode == 0, second.stderr
        assert "Batchline is open already" in second.stdout
        assert first.poll() is None  # the first window is still there
        assert _demo_controller(tmp_path) == pid  # and no second controller was started
    finally:
        first.send_signal(signal.SIGTERM)
        first.wait(30)
        _stop_demo_controller(tmp_path)


def _demo_controller(home: Path) -> int | None:
    """The pid of the demo ledger's controller, once one has started."""
    if not (home / "demo").is_dir():
        return None
    with Ledger(home / "demo") as ledger:
        running = ledger.controller_runs.current()
    return running.pid if running is not None else None


def _stop_demo_controller(home: Path) -> None:
    with Ledger(home / "demo") as ledger:
        running = ledger.controller_runs.current()
    if running is not None:
        os.kill(running.pid, signal.SIGTERM)
