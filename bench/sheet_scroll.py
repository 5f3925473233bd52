"""The contact sheet over 1,000 pictures: the longest GUI stall while scrolling it, and its memory.

Usage: QT_QPA_PLATFORM=offscreen .venv/bin/python -m bench.sheet_scroll (or `make bench-more`)
Target: longest event-loop stall at most 50 ms while the sheet scrolls top to bottom, the first
time (thumbnails made meanwhile in worker threads) and again (from the disk cache).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from PIL import Image
from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QApplication

from bench.gui import TXT2IMG, StallMeter, succeed
from core.controller.commands import LedgerCommands
from core.ledger import Ledger, NewJob
from desktop.common.thumbnails import ThumbnailLoader
from desktop.presets.preset_files import add_preset_file
from desktop.sheet.contact_sheet import ContactSheetWidget

JOBS = 1000
PICTURE = 512  # a small SD picture's side
STEP_MS = 16  # one scroll step a frame, as a wheel or a dragged scroll bar moves it


def rss_mb() -> float:
    """This process's resident memory now (Linux)."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * 4096 / 2**20


def succeeded_batch(folder: Path) -> tuple[Ledger, str]:
    """A ledger with one batch of JOBS succeeded jobs, each with its own real PNG."""
    ledger = Ledger(folder / "ledger")
    preset = add_preset_file(ledger, TXT2IMG).name
    assert preset is not None
    batch, ids = ledger.create_batch(
        preset, [NewJob(params={"3.seed": seed}) for seed in range(JOBS)], requester="bench"
    )
    pictures = folder / "pictures"
    pictures.mkdir()
    for n, job_id in enumerate(ids):
        path = pictures / f"{job_id}_1.png"
        shade = (n * 37 % 256, n * 91 % 256, n * 13 % 256)
        image = Image.radial_gradient("L").resize((PICTURE, PICTURE)).convert("RGB")
        Image.blend(image, Image.new("RGB", image.size, shade), 0.6).save(path)
        succeed(ledger, job_id, [str(path)])
    return ledger, batch.id


def wait(app: QApplication, ms: int) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def scroll_through(app: QApplication, sheet: ContactSheetWidget) -> tuple[float, float]:
    """Scroll top to bottom a third of a page a step; the longest stall (ms) and the time (s)."""
    bar = sheet.list_view.verticalScrollBar()
    bar.setValue(0)
    wait(app, 200)
    meter = StallMeter()
    meter.start()
    started = time.perf_counter()
    step = max(1, bar.pageStep() // 3)
    for value in range(0, bar.maximum() + step, step):
        bar.setValue(value)
        wait(app, STEP_MS)
    elapsed = time.perf_counter() - started
    wait(app, 300)  # the last thumbnails arrive
    return meter.longest_ms, elapsed


def main() -> int:
    app = QApplication.instance() or QApplication(sys.argv[:1])
    with tempfile.TemporaryDirectory(prefix="batchline-sheet-") as tmp:
        folder = Path(tmp)
        started = time.perf_counter()
        ledger, batch = succeeded_batch(folder)
        print(
            f"{JOBS} succeeded jobs with {PICTURE}x{PICTURE} PNGs written in "
            f"{time.perf_counter() - started:.1f} s"
        )
        before = rss_mb()
        thumbnails = ThumbnailLoader(folder / "thumbnails")
        sheet = ContactSheetWidget(ledger, thumbnails, LedgerCommands(ledger))
        sheet.resize(1000, 700)
        sheet.show()
        started = time.perf_counter()
        sheet.set_batches([batch], {}, batch)
        wait(app, 0)
        shown = time.perf_counter() - started
        cold, cold_s = scroll_through(app, sheet)
        warm, warm_s = scroll_through(app, sheet)
        after = rss_mb()
        sheet.stop()
        thumbnails.shutdown()
        sheet.close()
        ledger.close()
    print(f"sheet of {JOBS} pictures shown in {shown * 1000:.0f} ms")
    print(
        f"longest stall scrolling top to bottom, thumbnails made meanwhile: {cold:.0f} ms "
        f"(target <= 50; {cold_s:.1f} s of scrolling)"
    )
    print(
        f"longest stall scrolling again, thumbnails cached: {warm:.0f} ms (target <= 50; "
        f"{warm_s:.1f} s)"
    )
    print(f"memory the sheet took (resident, after both passes): {after - before:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
