"""Garbage holding Qt objects is collected on the GUI thread, never in a worker thread."""

from __future__ import annotations

import gc
import threading

from PySide6.QtCore import QObject

from desktop.app.main_thread_gc import MainThreadCollector


class Cyclic(QObject):
    """A Qt object kept alive only by a reference cycle; records where it was collected."""

    def __init__(self, log: list[str]) -> None:
        super().__init__()
        self.me = self
        self.log = log

    def __del__(self) -> None:
        self.log.append(threading.current_thread().name)


def churn(keep: list[list[int]]) -> None:
    """Allocate (and keep) enough containers to cross generation 0's threshold many times."""
    keep.extend([] for _ in range(20 * gc.get_threshold()[0]))


def test_automatic_collection_is_off_and_the_timer_collects_on_the_gui_thread(qapp, qtbot):
    # conftest starts one collector for every desktop test; this one checks its own.
    gc.enable()
    collector = MainThreadCollector(interval_ms=20)
    collector.start()
    try:
        assert not gc.isenabled()
        log: list[str] = []
        Cyclic(log)
        kept: list[list[int]] = []
        worker = threading.Thread(target=churn, args=(kept,), name="worker")
        worker.start()
        worker.join()
        assert log == []  # the worker's allocations did not collect it
        qtbot.waitUntil(lambda: log != [], timeout=15_000)  # a hang bound: the timer is 20 ms
        assert log == [threading.main_thread().name]
    finally:
        collector.stop()
    assert gc.isenabled()
    gc.disable()  # as the conftest collector left it


def test_stop_collects_what_is_left_and_restores_the_previous_setting(qapp):
    gc.disable()
    collector = MainThreadCollector(interval_ms=60_000)
    collector.start()
    log: list[str] = []
    Cyclic(log)
    collector.stop()
    assert log == [threading.main_thread().name]
    assert not gc.isenabled()  # it was off before start(), so it stays off
