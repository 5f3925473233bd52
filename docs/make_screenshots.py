"""Render screenshots of the main window mid-batch on the built-in simulator.

Usage: .venv/bin/python docs/make_screenshots.py [--out docs]
Runs offscreen unless QT_QPA_PLATFORM or a display says otherwise (xvfb-run works too).
Writes screenshot-main.png (the Table tab mid-batch, job details), the same window laid out for
1366x768 and 1600x1000 screens (screenshot-1366x768.png, screenshot-1600x1000.png). The
pictures in docs/screenshots/ (contact sheet with a failed job, X/Y grid, viewer) were taken by
hand in the demo under Xvfb, a failure injected into its simulator.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import qasync  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from core.job_state import JobState  # noqa: E402
from desktop.app.session import Session, SessionOptions  # noqa: E402

if TYPE_CHECKING:
    from collections.abc import Callable

PRESET = "Portrait txt2img (SD 1.5)"
SMALL_SCREENS = ((1366, 768), (1600, 1000))


async def wait_for(predicate: Callable[[], bool], seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("the batch did not get far enough in time")
        await asyncio.sleep(0.1)


def states(session: Session) -> dict[JobState, int]:
    assert session.window is not None
    counts: dict[JobState, int] = {}
    for job in session.window.model.jobs():
        counts[job.state] = counts.get(job.state, 0) + 1
    return counts


async def scenario(out: Path, data: Path) -> None:
    session = Session(SessionOptions(data_dir=data, demo=True, demo_job_seconds=1.2))
    window = await session.open()
    window.resize(1680, 940)
    window.presets.select(PRESET)
    window.composer.seeds.count.setValue(24)
    window.composer.seeds.start.setValue(1000)
    window.composer.queue()
    await wait_for(lambda: states(session).get(JobState.succeeded, 0) >= 6)
    await wait_for(lambda: bool(session.controller and session.controller.status.progress))
    succeeded = [j for j in window.model.jobs() if j.state is JobState.succeeded]
    window.show_table()
    window.select_job(succeeded[1].id)
    await asyncio.sleep(0.6)  # thumbnails are made in worker threads
    window.grab().save(str(out / "screenshot-main.png"))
    for width, height in SMALL_SCREENS:  # as fit_to_screen lays it out on such a screen
        window.fit_to_screen(width, height)
        await asyncio.sleep(0.3)
        window.grab().save(str(out / f"screenshot-{width}x{height}.png"))
    await session.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    args = parser.parse_args()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setQuitOnLastWindowClosed(False)
    with tempfile.TemporaryDirectory(prefix="batchline-shots-") as data:
        qasync.run(scenario(args.out, Path(data)))
    print(f"wrote {args.out / 'screenshot-main.png'} and the small-screen ones beside it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
