"""The Library tab over 100,000 finished jobs and their pictures: its first screen, the longest
stall while it scrolls through many pages, the window's memory, and the index's size.

Builds the search benchmark's ledger (``bench.search.build``: 1,000 batches of 100 finished
jobs, each with a real 16x16 PNG on disk, the index built by migration 12's code), then opens
the real window (1366x768, offscreen) in a fresh process, so that its memory is the window's
and not the builder's. Measured there, with a cold thumbnail cache:

- the batch sheet's first screen for a batch of 100 jobs (the baseline), then the library's: from
  asking for the tab until a paint of its viewport in which every visible cell has its thumbnail
  (target <= 300 ms);
- the gaps of a 5 ms timer beyond its 5 ms while the library scrolls down a third of a page every
  16 ms through PAGES pages of 100 pictures (thumbnails made meanwhile), then back up (thumbnails
  cached): p50, p99 and the longest (target <= 16 ms);
- the window's resident memory after scrolling, and its peak (target <= 400 MB), beside an empty
  Qt window's in a process of its own;
- a page read at the library's far end as the library reads it (after the picture before it),
  beside the same page read by its offset (reported).

Run: `make bench-more` or `QT_QPA_PLATFORM=offscreen .venv/bin/python -m bench.library [JOBS]`.
Prints; asserts nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench.feed import Figure, print_table
from bench.search import build, sizes

if TYPE_CHECKING:
    from core.ledger.picture_index import PictureHit

PAGES = 30  # library pages of 100 scrolled through
STEP_MS = 16  # one scroll step a frame, as sheet_scroll.py
WIDTH, HEIGHT = 1366, 768
TIMEOUT = 20.0  # seconds a first screen may take before the bench gives up on it


def rss_mb() -> float:
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def peak_mb() -> float:
    """This process's peak resident memory (Linux's VmHWM: unlike ru_maxrss, not inherited
    from the parent across fork and exec)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values) or [0.0]
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


# --- in the window's process ----------------------------------------------------------------


def empty_window() -> dict[str, float]:
    """An empty QMainWindow of the same size, shown: what Qt alone takes."""
    from PySide6.QtWidgets import QApplication, QMainWindow

    app = QApplication(sys.argv[:1])
    window = QMainWindow()
    window.resize(WIDTH, HEIGHT)
    window.show()
    for _ in range(10):
        app.processEvents()
    return {"rss": rss_mb(), "peak": peak_mb()}


def window_figures(home: Path) -> dict[str, Any]:
    from PySide6.QtCore import QEvent, QEventLoop, QObject, QTimer
    from PySide6.QtWidgets import QAbstractItemView, QApplication

    from bench.gui import IdleController
    from core.ledger import Ledger
    from desktop.sheet.contact_sheet_model import PATH_ROLE
    from desktop.window.main_window import MainWindow

    app = QApplication(sys.argv[:1])

    def wait(ms: int) -> None:
        loop = QEventLoop()
        QTimer.singleShot(ms, loop.quit)
        loop.exec()

    class FirstScreen(QObject):
        """The time of the first paint of a view in which every visible cell has its
        thumbnail (checked as the paint begins; timed once it is done)."""

        def __init__(self, view: QAbstractItemView, thumbnails: Any) -> None:
            super().__init__()
            self.view, self.thumbnails = view, thumbnails
            self.first_paint: float | None = None
            self.done: float | None = None
            self.cells = 0
            view.viewport().installEventFilter(self)

        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint and self.done is None:
                visible = self.visible_paths()
                if visible and self.first_paint is None:
                    self.first_paint = time.perf_counter()
                if visible and all(self.thumbnails.cached(path) for path in visible):
                    self.cells = len(visible)
                    QTimer.singleShot(0, self.painted)
            return False

        def painted(self) -> None:
            if self.done is None:
                self.done = time.perf_counter()

        def visible_paths(self) -> list[str]:
            model, area = self.view.model(), self.view.viewport().rect()
            paths = []
            for row in range(model.rowCount()):
                index = model.index(row, 0)
                if self.view.visualRect(index).intersects(area):
                    path = index.data(PATH_ROLE)
                    if path:
                        paths.append(path)
            return paths

        def wait(self, started: float) -> tuple[float, float, int]:
            """ms to the first paint with cells, ms to the first screen with thumbnails."""
            while self.done is None and time.perf_counter() - started < TIMEOUT:
                app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents, 5)
            self.view.viewport().removeEventFilter(self)
            done = self.done or float("inf")
            first = self.first_paint or done
            return (first - started) * 1000, (done - started) * 1000, self.cells

    class GapMeter(QObject):
        """Each tick's lateness (ms) of a 5 ms timer: how long the loop was busy."""

        def __init__(self) -> None:
            super().__init__()
            self.gaps: list[float] = []
            self._last = time.perf_counter()
            self._timer = QTimer(self)
            self._timer.setInterval(5)
            self._timer.timeout.connect(self.tick)
            self._timer.start()

        def tick(self) -> None:
            now = time.perf_counter()
            self.gaps.append(max(0.0, (now - self._last) * 1000 - 5.0))
            self._last = now

        def stop(self) -> list[float]:
            self._timer.stop()
            return self.gaps

    ledger = Ledger(home)
    shot = Path(sys.argv[sys.argv.index("--shot") + 1]) if "--shot" in sys.argv else None
    window = MainWindow(ledger, IdleController(), thumbnail_dir=home / "thumbs")  # type: ignore[arg-type]
    window.resize(WIDTH, HEIGHT)
    window.start()
    window.show()
    while window.model.loading:
        app.processEvents()
    wait(500)
    out: dict[str, Any] = {"window_rss": rss_mb()}

    # The baseline: the batch sheet's first screen for the oldest batch of 100 (not the
    # library's first pictures: their thumbnails stay cold).
    oldest = min(ledger.batches(), key=lambda batch: batch.created_at).id
    probe = FirstScreen(window.sheet.list_view, window.thumbnails)
    started = time.perf_counter()
    window.sheet.show_batch(oldest)
    out["sheet_first_paint"], out["sheet_first_screen"], out["sheet_cells"] = probe.wait(started)
    wait(300)

    probe = FirstScreen(window.library.view, window.thumbnails)
    started = time.perf_counter()
    window.show_library()
    out["first_paint"], out["first_screen"], out["cells"] = probe.wait(started)
    wait(300)

    view = window.library.view
    bar = view.verticalScrollBar()
    step = max(1, bar.pageStep() // 3)
    if shot is not None:
        window.grab().save(str(shot))
    meter = GapMeter()
    started = time.perf_counter()
    value = 0
    while window.library.model.rowCount() < PAGES * 100:
        value = min(value + step, bar.maximum())
        bar.setValue(value)
        wait(STEP_MS)
        if time.perf_counter() - started > 120:
            break
    out["down_s"] = time.perf_counter() - started
    out["down_gaps"] = meter.stop()
    out["rows"] = window.library.model.rowCount()
    wait(300)
    meter = GapMeter()
    started = time.perf_counter()
    while value > 0:
        value = max(0, value - step)
        bar.setValue(value)
        wait(STEP_MS)
    out["up_s"] = time.perf_counter() - started
    out["up_gaps"] = meter.stop()
    wait(300)
    out["rss"], out["peak"] = rss_mb(), peak_mb()

    probe = FirstScreen(window.library.view, window.thumbnails)
    window.middle.setCurrentIndex(0)
    wait(300)
    started = time.perf_counter()
    window.show_library()
    _, out["again_first_screen"], _ = probe.wait(started)
    window.close()
    window.thumbnails.shutdown()
    ledger.close()
    return out


def child(*args: str) -> dict[str, Any]:
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")}
    done = subprocess.run(
        [sys.executable, "-m", "bench.library", *args],
        env=env,
        check=True,
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parent.parent,
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


# --- the table ------------------------------------------------------------------------------


def deep_page(home: Path) -> tuple[int, float, float]:
    """How deep the last page of the library is, and the median time (ms) of reading it as
    the library does (after the picture before it) and, the baseline, by its offset."""
    from core.ledger import Ledger
    from core.pictures.search import MAX_LIMIT, page_after, search

    with Ledger(home) as ledger:
        before: list[PictureHit] = []
        while page := page_after(ledger, "", before[-1].place if before else None, limit=MAX_LIMIT):
            before.extend(page)
        depth = max(0, len(before) - 100)
        after = before[depth - 1].place if depth else None
        times: dict[str, list[float]] = {"after": [], "offset": []}
        for _ in range(9):
            started = time.perf_counter()
            page_after(ledger, "", after, limit=100)
            times["after"].append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            search(ledger, "", limit=100, offset=depth)
            times["offset"].append((time.perf_counter() - started) * 1000)
    return depth, percentile(times["after"], 0.5), percentile(times["offset"], 0.5)


def figures(jobs: int, home: Path) -> list[Figure]:
    empty = child("--empty")
    got = child("--window", str(home))
    index, total = sizes(home)
    depth, after_ms, offset_ms = deep_page(home)
    down, up = got["down_gaps"], got["up_gaps"]
    longest = max(max(down, default=0.0), max(up, default=0.0))
    sheet = f"batch sheet, 100 jobs: {got['sheet_first_screen']:.0f} ms"
    ratio = got["first_screen"] / max(got["sheet_first_screen"], 1e-9)
    return [
        Figure(
            f"library first screen, {jobs:,} pictures ({got['cells']} cells)",
            got["first_screen"],
            "ms",
            "<= 300",
            f"{sheet} ({got['sheet_cells']} cells); {ratio:.1f}x",
            got["first_screen"] <= 300,
        ),
        Figure(
            "  its first paint (cells, no thumbnails yet)",
            got["first_paint"],
            "ms",
            "reported",
            f"batch sheet: {got['sheet_first_paint']:.0f} ms",
            None,
        ),
        Figure(
            "  again (thumbnails cached)",
            got["again_first_screen"],
            "ms",
            "reported",
            "",
            None,
        ),
        Figure(
            f"longest stall scrolling {got['rows']:,} pictures down and up",
            longest,
            "ms",
            "<= 16",
            f"gaps p50 {percentile(down + up, 0.5):.1f}, p99 {percentile(down + up, 0.99):.1f} ms",
            longest <= 16,
        ),
        Figure(
            f"  down, thumbnails made meanwhile ({got['down_s']:.1f} s)",
            max(down, default=0.0),
            "ms",
            "<= 16",
            f"p50 {percentile(down, 0.5):.1f}, p99 {percentile(down, 0.99):.1f} ms",
            max(down, default=0.0) <= 16,
        ),
        Figure(
            f"  up, thumbnails cached ({got['up_s']:.1f} s)",
            max(up, default=0.0),
            "ms",
            "<= 16",
            f"p50 {percentile(up, 0.5):.1f}, p99 {percentile(up, 0.99):.1f} ms",
            max(up, default=0.0) <= 16,
        ),
        Figure(
            f"a page of 100 read {depth:,} pictures deep",
            after_ms,
            "ms",
            "reported",
            f"by its offset: {offset_ms:.1f} ms; {offset_ms / max(after_ms, 1e-9):.0f}x",
            None,
        ),
        Figure(
            "window RSS after scrolling",
            got["rss"],
            "MB",
            "<= 400",
            f"empty Qt window {empty['rss']:.0f} MB; before the library {got['window_rss']:.0f}",
            got["rss"] <= 400,
        ),
        Figure(
            "window peak RSS",
            got["peak"],
            "MB",
            "<= 400",
            f"empty Qt window peak {empty['peak']:.0f} MB",
            got["peak"] <= 400,
        ),
        Figure(
            "the index's size",
            index / 2**20,
            "MiB",
            "reported",
            f"of the ledger's {total / 2**20:.0f} MiB ({100 * index / total:.0f} %)",
            None,
        ),
    ]


def main() -> int:
    if sys.argv[1:2] == ["--empty"]:
        print(json.dumps(empty_window()))
        return 0
    if sys.argv[1:2] == ["--window"]:
        print(json.dumps(window_figures(Path(sys.argv[2]))))
        return 0
    jobs = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    with tempfile.TemporaryDirectory(prefix="batchline-library-") as folder:
        home = Path(folder)
        started = time.perf_counter()
        build(home, jobs)
        print(
            f"{jobs:,} finished jobs, one PNG each, indexed: {time.perf_counter() - started:.1f} s"
        )
        print_table(figures(jobs, home))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
