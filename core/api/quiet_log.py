"""Logging what clients can cause as often as they like (a request line too long, a refused
connection, accept failing while descriptors run out) once in a while, not once each: a line
now and then saying how many more there were, so nobody without a token can fill the disk
with the log."""

from __future__ import annotations

import contextlib
import errno
import logging
import time
from typing import TYPE_CHECKING, Any

from aiohttp.http_exceptions import HttpProcessingError

if TYPE_CHECKING:
    import asyncio
    from collections.abc import Iterator

EVERY_S = 60.0  # at most one line a kind in this time
# Failures of accept() while this process has no descriptor (or memory) left.
_OUT_OF_RESOURCES = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
HTTP_LOG = "batchline.api.http"  # the logger aiohttp's request handlers are given


class EveryWhile(logging.Filter):
    """Lets one record of a kind (its message's format) through every ``EVERY_S``, with the
    count of those held back since; a client's bad request loses its traceback (one line),
    an error of ours keeps it."""

    def __init__(self) -> None:
        super().__init__()
        self._last: dict[str, float] = {}
        self._held: dict[str, int] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        kind, now = str(record.msg), time.monotonic()
        last = self._last.get(kind)
        if last is not None and now - last < EVERY_S:
            self._held[kind] = self._held.get(kind, 0) + 1
            return False
        self._last[kind] = now
        held = self._held.pop(kind, 0)
        text = record.getMessage()
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, HttpProcessingError | OSError):
            text = f"{text}: {type(exc).__name__}: {exc}"
            record.exc_info, record.exc_text = None, None
        if held and last is not None:
            text = f"{text} (and {held} more like it in the last {now - last:.0f} s)"
        record.msg, record.args = text, ()
        return True


def quiet_logger(name: str = HTTP_LOG) -> logging.Logger:
    """The logger of that name, its records passed through one ``EveryWhile`` (added once)."""
    logger = logging.getLogger(name)
    if not any(isinstance(f, EveryWhile) for f in logger.filters):
        logger.addFilter(EveryWhile())
    return logger


@contextlib.contextmanager
def quiet_accept_errors(loop: asyncio.AbstractEventLoop) -> Iterator[None]:
    """While inside, the loop reports accept() failing for want of descriptors through
    ``quiet_logger`` (asyncio logs each with a traceback, and retries every second); anything
    else goes to the handler it had, which it has again after."""
    previous = loop.get_exception_handler()
    logger = quiet_logger()

    def handle(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        if isinstance(exc, OSError) and exc.errno in _OUT_OF_RESOURCES:
            logger.warning("the API cannot accept connections (%s)", exc.strerror)
        elif previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handle)
    try:
        yield
    finally:
        loop.set_exception_handler(previous)
