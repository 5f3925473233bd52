"""The window takes the room the screen has and fits small screens: a 1366x768 laptop, and 200 %
scale on 1366x768 and 1600x1000 (683x384 and 800x500 logical pixels), with its Queue button and
status bar on screen and room for the composer's form; on a narrow one the details pane gives
its room to the pictures until asked for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def _inside(box: list[int], room: list[int]) -> bool:
    return room[0] <= box[0] <= box[2] <= room[2] and room[1] <= box[1] <= box[3] <= room[3]


@pytest.mark.parametrize(
    ("width", "height", "scale"),
    [(1366, 768, 1), (1600, 1000, 1), (3200, 2000, 2), (1366, 768, 2), (1600, 1000, 2)],
)
def test_the_window_its_queue_button_and_status_bar_are_on_screen(
    tmp_path: Path, width: int, height: int, scale: int
) -> None:
    screens = {"screens": [{"name": "s", "x": 0, "y": 0, "width": width, "height": height}]}
    config = tmp_path / "screens.json"
    config.write_text(json.dumps(screens))
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": f"offscreen:configfile={config}",
        "QT_SCALE_FACTOR": str(scale),
        "PYTHONPATH": str(ROOT),
    }
    done = subprocess.run(
        [sys.executable, "-m", "tests.desktop.screen_fit"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    room = seen["room"]
    assert room == [0, 0, width // scale - 1, height // scale - 1]
    assert _inside(seen["window"], room), seen
    window = seen["window"]  # all the room there is (1500x880 on 1600x1000, before)
    assert window[2] - window[0] >= room[2] - room[0] - 16, seen
    assert window[3] - window[1] >= room[3] - room[1] - 48, seen
    for part in ("queue", "status"):
        assert seen[part], f"the {part} is hidden: {seen}"
        assert _inside(seen[part], room), seen
    # the composer's form shows a few of its fields (52 px, one field, before the presets list
    # gave way on a short screen)
    assert seen["form_height"] >= 90, seen
    if width // scale < 900:  # narrow: the details pane starts folded, View > Details opens it
        assert seen["details_width"] == 0, seen
        assert seen["middle_width"] >= 300, seen
        assert seen["details_opened_width"] >= 100, seen
    else:
        assert seen["details_width"] >= 100, seen
