"""What clients can make the API log, as often as they like, is logged once a while: request lines
too long, accept failing for want of descriptors."""

from __future__ import annotations

import asyncio
import errno
import logging

import pytest

from core.api import quiet_log
from core.api.quiet_log import HTTP_LOG, EveryWhile, quiet_accept_errors
from tests.core.api.conftest import Api

pytestmark = pytest.mark.asyncio


@pytest.mark.expect_log(HTTP_LOG, "ERROR")
async def test_request_lines_too_long_are_refused_and_logged_once(
    api: Api, fresh_quiet_log: logging.Logger, caplog: pytest.LogCaptureFixture
) -> None:
    async with api.client() as http:
        answers = [(await http.get("/v1/jobs", params={"x": "a" * 10_000})) for _ in range(30)]
    assert {answer.status_code for answer in answers} == {400}
    (line,) = [r for r in caplog.records if r.name == HTTP_LOG]
    assert line.exc_info is None
    assert "LineTooLong" in line.getMessage()


async def test_every_while_lets_one_through_then_says_how_many_it_held(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(quiet_log, "EVERY_S", 0.2)
    logger = logging.getLogger("tests.quiet")
    logger.addFilter(EveryWhile())
    with caplog.at_level(logging.INFO, logger="tests.quiet"):
        for n in range(50):
            logger.info("connection %d refused", n)
        await asyncio.sleep(0.25)
        logger.info("connection %d refused", 50)
    assert [r.getMessage().split(" (")[0] for r in caplog.records] == [
        "connection 0 refused",
        "connection 50 refused",
    ]
    assert "(and 49 more like it in the last 0 s)" in caplog.records[1].getMessage()


@pytest.mark.expect_log(HTTP_LOG, "WARNING")
async def test_accept_failing_for_want_of_descriptors_is_one_line(
    fresh_quiet_log: logging.Logger, caplog: pytest.LogCaptureFixture
) -> None:
    loop = asyncio.get_running_loop()
    with quiet_accept_errors(loop):
        for _ in range(100):
            loop.call_exception_handler(
                {
                    "message": "socket.accept() out of system resource",
                    "exception": OSError(errno.EMFILE, "Too many open files"),
                }
            )
    (line,) = [r for r in caplog.records if r.name in (HTTP_LOG, "asyncio")]
    assert line.getMessage() == "the API cannot accept connections (Too many open files)"
