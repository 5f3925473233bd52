"""Leak checks: an async test fails if it leaves asyncio tasks running on its loop (the desktop
tests' qasync loop is checked by its fixture), a GUI test fails if it leaves a QTimer running
(started from Python), as napari's `_dangling_qtimers` does.

Both checks are fixtures put first in a test's fixtures, so they run after every other fixture
of the test was torn down: what a fixture stops in its teardown is not a leak.
"""

from __future__ import annotations

import asyncio
import traceback
import weakref
from collections.abc import Iterator
from typing import Any

import pytest
from pytest_asyncio import is_async_test

# pytest-asyncio's fixture holding the asyncio.Runner of a function-scoped test loop.
RUNNER_FIXTURE = "_function_scoped_runner"


def pytest_runtest_setup(item: pytest.Item) -> None:
    names: list[str] = getattr(item, "fixturenames", [])
    checks = []
    if is_async_test(item):
        checks.append("no_task_left")
    if item.get_closest_marker("gui"):
        checks.append("no_timer_left")
    for name in reversed(checks):
        if name not in names:
            names.insert(0, name)


@pytest.fixture
def no_task_left(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail an async test that leaves tasks pending on its loop once its fixtures are torn
    down (pytest-asyncio would cancel them silently when it closes the loop)."""
    loop = request.getfixturevalue(RUNNER_FIXTURE).get_loop()
    yield
    left = tasks_left(loop)
    assert not left, "asyncio tasks left running after the test:\n" + "\n".join(left)


def tasks_left(loop: asyncio.AbstractEventLoop) -> list[str]:
    """Cancel the tasks that code started on the (stopped) loop and that are still pending,
    let them end, and name each."""
    left = [task for task in asyncio.all_tasks(loop) if not task.done() and _started(task)]
    for task in left:
        task.cancel()
    if left:
        loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))
    return [f"{task.get_name()}: {task.get_coro()!r}" for task in left]


def _started(task: asyncio.Task[Any]) -> bool:
    """Whether code started the task: the loop's own closing of an async generator dropped
    mid-iteration (as httpx's body iterators are when a read stops early) is not counted,
    it runs when the garbage collector finds the generator, at no predictable time."""
    return type(task.get_coro()).__name__ != "async_generator_athrow"


@pytest.fixture
def no_timer_left() -> Iterator[None]:
    """Fail a GUI test that leaves a QTimer running that it (or its code) started; the
    message names where each was started."""
    from PySide6.QtCore import QTimer

    started: weakref.WeakKeyDictionary[QTimer, str] = weakref.WeakKeyDictionary()
    start = QTimer.start

    def recording_start(timer: QTimer, *args: Any) -> None:
        started[timer] = "".join(traceback.format_stack(limit=4)[:-1])
        start(timer, *args)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(QTimer, "start", recording_start)
        yield
    running = [where for timer, where in list(started.items()) if _stopped(timer)]
    assert not running, "QTimers left running after the test, started at:\n" + "\n".join(running)


def _stopped(timer: Any) -> bool:
    """Stop the timer; whether it was running (one whose C++ object is gone was not)."""
    try:
        active = bool(timer.isActive())
        timer.stop()
    except RuntimeError:  # deleted by Qt, with its parent
        return False
    return active
