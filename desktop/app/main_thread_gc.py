"""Python's garbage collector, run on the GUI thread only.

An automatic collection runs in whichever thread happens to allocate when a generation's
threshold is crossed: the demo simulator's, a thumbnail worker's, an executor's. If that pass
frees a reference cycle holding a Qt object (a widget whose slot is a lambda over itself, say),
the C++ object is destroyed in the wrong thread and the process crashes (a segmentation fault;
it happened in CI while the demo simulator shut down). So while the window lives, automatic
collection is off and a timer on the GUI thread collects with the interpreter's own thresholds,
as pyqtgraph's ``GarbageCollector`` does.
"""

from __future__ import annotations

import gc
from typing import Any

from PySide6.QtCore import QObject, QTimer, Slot

CHECK_INTERVAL_MS = 250


class MainThreadCollector(QObject):
    """Disables automatic collection between ``start()`` and ``stop()``; collects on a timer."""

    def __init__(self, interval_ms: int = CHECK_INTERVAL_MS, parent: Any = None) -> None:
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.check)
        self._was_enabled = gc.isenabled()

    def start(self) -> None:
        self._was_enabled = gc.isenabled()
        gc.disable()
        self._timer.start()

    def stop(self) -> None:
        """Collect once more here, then give collection back to the interpreter."""
        self._timer.stop()
        gc.collect()
        if self._was_enabled:
            gc.enable()

    @Slot()
    def check(self) -> None:
        """Collect the generations whose counts crossed their thresholds, youngest first."""
        counts, thresholds = gc.get_count(), gc.get_threshold()
        if counts[0] <= thresholds[0]:
            return
        generation = 0
        if counts[1] > thresholds[1]:
            generation = 2 if counts[2] > thresholds[2] else 1
        gc.collect(generation)
