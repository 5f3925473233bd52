"""Which windows watch a ledger: OS locks that go with their process, however it ends."""

from __future__ import annotations

import subprocess
import sys
import time
from typing import TYPE_CHECKING

from core.ledger.windows import FOLDER, WindowPresence, windows_open

if TYPE_CHECKING:
    from pathlib import Path

HOLD = (
    "import sys, time\n"
    "from pathlib import Path\n"
    "from core.ledger.windows import WindowPresence\n"
    "window = WindowPresence(Path(sys.argv[1]))\n"
    "window.hold()\n"
    "print('holding', flush=True)\n"
    "time.sleep(60)\n"
)


def test_a_window_is_seen_while_it_holds_on_and_not_after(tmp_path: Path) -> None:
    assert not windows_open(tmp_path)
    first, second = WindowPresence(tmp_path), WindowPresence(tmp_path)
    first.hold()
    second.hold()
    assert windows_open(tmp_path)
    first.release()
    assert windows_open(tmp_path)
    second.release()
    assert not windows_open(tmp_path)
    assert list((tmp_path / FOLDER).iterdir()) == []


def test_a_killed_window_lets_go_and_its_file_is_cleared(tmp_path: Path) -> None:
    window = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert window.stdout is not None
        assert window.stdout.readline() == "holding\n"
        assert windows_open(tmp_path)
    finally:
        window.kill()
        window.communicate()
    deadline = time.monotonic() + 5
    while windows_open(tmp_path):
        assert time.monotonic() < deadline, "the killed window still counts"
        time.sleep(0.05)
    assert list((tmp_path / FOLDER).iterdir()) == []
