"""The suite's own checks fail a test that logs an unexpected warning, prints a Qt warning or
leaves an asyncio task or a QTimer running; what a test says it expects passes. No test bounds
measured time from above (tests/wall_clock.py): tests wait for events or count them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.wall_clock import upper_bounds, upper_bounds_in

ROOT = Path(__file__).resolve().parents[1]

# Asserts allowed to bound measured time from above: (path, test function) -> why it must stay.
# Keep it empty: wait for the event (a bound on a hang only) or count what happened instead.
WALL_CLOCK_ALLOWED: dict[tuple[str, str], str] = {}

SETTINGS = """
[pytest]
qt_api = pyside6
qt_log_level_fail = WARNING
asyncio_mode = strict
asyncio_default_fixture_loop_scope = function
"""

TESTS = """
import asyncio
import logging

import pytest
from PySide6.QtCore import QTimer, qWarning

log = logging.getLogger("core.example")


def test_unexpected_warning():
    log.warning("disk nearly full")


@pytest.mark.expect_log("core")
def test_marked_warning():
    log.warning("disk nearly full")


@pytest.mark.expect_log("core")
def test_marked_warning_but_an_error():
    log.error("disk full")


def test_warning_at_the_level_caplog_set(caplog):
    with caplog.at_level(logging.WARNING, logger="core.example"):
        log.warning("disk nearly full")


def test_info_passes():
    log.info("all well")


def test_qt_warning(qapp):
    qWarning("a Qt warning")


@pytest.mark.asyncio
async def test_task_left_running():
    asyncio.get_running_loop().create_task(asyncio.sleep(60), name="sleeper")


@pytest.mark.asyncio
async def test_task_awaited():
    await asyncio.get_running_loop().create_task(asyncio.sleep(0))


def test_timer_left_running(qapp):
    timer = QTimer(qapp)
    timer.start(60_000)


def test_timer_stopped(qapp):
    timer = QTimer(qapp)
    timer.start(60_000)
    timer.stop()
"""


def test_the_checks_fail_exactly_the_tests_that_leak(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeini(SETTINGS)
    pytester.makeconftest("from tests.conftest import *  # noqa: F403\n")
    pytester.makepyfile(test_example=TESTS)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rfE")
    outcomes = {
        line.split("::")[1].split(" ")[0]: line.split(" ")[0]
        for line in result.outlines
        if line.startswith(("PASSED", "FAILED", "ERROR")) and "::" in line
    }
    assert outcomes == {
        "test_unexpected_warning": "ERROR",
        "test_marked_warning_but_an_error": "ERROR",
        "test_qt_warning": "FAILED",
        "test_task_left_running": "ERROR",
        "test_timer_left_running": "ERROR",
    }
    result.assert_outcomes(passed=9, failed=1, errors=4)
    text = result.stdout.str()
    assert "core.example WARNING: disk nearly full" in text
    assert "sleeper: <coroutine object sleep" in text
    assert "timer.start(60_000)" in text


def test_no_test_bounds_measured_time_from_above() -> None:
    """An ``assert elapsed < 1.0`` fails on a slow or busy machine and proves little."""
    found = upper_bounds_in(ROOT / "tests", ROOT)
    new = [
        f"{b.path}:{b.line} {b.function}: {b.text}" for b in found if _unallowed(b.path, b.function)
    ]
    assert new == [], (
        "wall-clock upper bounds (wait for the event, or count what happened):\n" + "\n".join(new)
    )
    stale = set(WALL_CLOCK_ALLOWED) - {(b.path, b.function) for b in found}
    assert stale == set(), "allowed, but no longer there: take them off WALL_CLOCK_ALLOWED"


def _unallowed(path: str, function: str) -> bool:
    return (path, function) not in WALL_CLOCK_ALLOWED


UPPER_BOUNDS = """
import asyncio, time
from time import perf_counter


async def slept(link):
    started = time.monotonic()
    await link.sleep(1)
    return time.monotonic() - started


def test_elapsed():
    started = time.monotonic()
    elapsed = time.monotonic() - started
    assert 0.5 <= elapsed < 3


def test_direct():
    started = perf_counter()
    assert perf_counter() - started <= 1.0


async def test_loop_time():
    stopped = asyncio.get_running_loop().time()
    assert asyncio.get_running_loop().time() - stopped < 2.0, "held up"


async def test_helper(link):
    assert await slept(link) < 0.25


def test_reversed():
    started = time.monotonic()
    assert 1.0 > time.monotonic() - started


def test_instants():
    first = time.monotonic()
    last = time.monotonic()
    assert last - first < 1


def test_named(run):
    took = run()
    assert took < 5.0, took
"""

NOT_UPPER_BOUNDS = """
import asyncio, time


def test_lower_bound():
    started = time.monotonic()
    assert time.monotonic() - started >= 0.2, "the backoff held"


def test_deadline(ready):
    deadline = time.monotonic() + 30
    while not ready():
        assert time.monotonic() < deadline, "not reached in time"


async def test_hang_bound(event):
    async with asyncio.timeout(20):
        await event.wait()


def test_counts(requests):
    assert len(requests) < 3
"""


def test_the_wall_clock_check_finds_upper_bounds_not_lower_bounds_nor_deadlines() -> None:
    found = {bound.function for bound in upper_bounds(UPPER_BOUNDS)}
    assert found == {
        "test_elapsed",
        "test_direct",
        "test_loop_time",
        "test_helper",
        "test_reversed",
        "test_instants",
        "test_named",
    }
    assert upper_bounds(NOT_UPPER_BOUNDS) == []
