"""Work run off the GUI thread: in the pool's own threads, never more at once than it has, its
result or expected failure delivered on the GUI thread with its key."""

from __future__ import annotations

import threading

import pytest
from pytestqt.qtbot import QtBot

from desktop.common.off_thread import OffThread


def test_the_result_arrives_on_the_gui_thread_with_its_key(qtbot: QtBot) -> None:
    pool = OffThread("worker", 1)
    ran_in: list[str] = []
    got: list[tuple[object, object, str]] = []
    pool.done.connect(
        lambda key, result: got.append((key, result, threading.current_thread().name))
    )

    def work(a: int, b: int) -> int:
        ran_in.append(threading.current_thread().name)
        return a + b

    pool.submit("sum", work, 2, 3)
    qtbot.waitUntil(lambda: len(got) == 1)
    assert got == [("sum", 5, threading.main_thread().name)]
    assert ran_in[0].startswith("worker")
    pool.shutdown()


def test_an_expected_failure_arrives_and_another_is_not_reported(qtbot: QtBot) -> None:
    pool = OffThread("worker", 1, expected=(OSError,))
    failed: list[tuple[object, str]] = []
    done: list[object] = []
    pool.failed.connect(lambda key, exc: failed.append((key, str(exc))))
    pool.done.connect(lambda key, _result: done.append(key))

    def unreadable() -> None:
        raise OSError("no such file")

    def broken() -> None:
        raise KeyError("a bug")

    pool.submit("first", unreadable)
    pool.submit("second", broken)
    pool.submit("third", lambda: None)
    qtbot.waitUntil(lambda: done == ["third"])
    assert failed == [("first", "no such file")]
    pool.shutdown()


@pytest.mark.parametrize("workers", [1, 2])
def test_never_more_at_once_than_its_workers(qtbot: QtBot, workers: int) -> None:
    pool = OffThread("worker", workers)
    lock = threading.Lock()
    running = [0]
    most = [0]
    release = threading.Event()
    started = threading.Semaphore(0)

    def work() -> None:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        started.release()
        release.wait()
        with lock:
            running[0] -= 1

    done: list[object] = []
    pool.done.connect(lambda key, _result: done.append(key))
    for n in range(4):
        pool.submit(n, work)
    for _ in range(workers):
        assert started.acquire(timeout=10)
    assert not started.acquire(blocking=False)  # the others wait for a free worker
    release.set()
    qtbot.waitUntil(lambda: len(done) == 4)
    assert most[0] == workers
    pool.shutdown()


def test_shutdown_drops_what_waits_and_waits_for_what_runs(qtbot: QtBot) -> None:
    pool = OffThread("worker", 1)
    release = threading.Event()
    started = threading.Event()
    ran: list[int] = []

    def work(n: int) -> None:
        started.set()
        release.wait()
        ran.append(n)

    pool.submit(1, work, 1)
    pool.submit(2, work, 2)
    assert started.wait(timeout=10)
    threading.Timer(0.5, release.set).start()  # once shutdown has dropped the second
    pool.shutdown()
    assert ran == [1]
