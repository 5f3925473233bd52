"""The suite's own checks fail a test that logs an unexpected warning, prints a Qt warning or
leaves an asyncio task or a QTimer running; what a test says it expects passes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

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
