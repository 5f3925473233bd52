"""What reaches the user's terminal: text from servers and files, made harmless.

A node type, an error message or a server's version string is chosen by whoever runs that
server; printed raw, ``"\\x1b[31m"`` colours the user's terminal and ``"\\x1b[2J"`` clears it.
While a command runs, its standard output and error go through `SafeText`, which shows every
control character (except newline and tab) as an escape, and text that cannot be encoded
(a lone surrogate) as an escape too, instead of failing.
"""

from __future__ import annotations

import contextlib
import re
import sys
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from collections.abc import Iterator

# C0 controls but tab and newline, DEL, and the C1 controls (an 8-bit CSI is one of them).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def escape_controls(text: str) -> str:
    """``text`` with each control character but newline and tab written as an escape."""
    escaped = _CONTROL.sub(lambda m: repr(m.group())[1:-1], text)
    return escaped.encode("utf-8", "backslashreplace").decode("utf-8")


class SafeText:
    """A text stream that writes through to ``stream`` with control characters escaped."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(escape_controls(text))
        return len(text)

    def __getattr__(self, name: str) -> object:  # flush, isatty, fileno, encoding, ...
        return getattr(self._stream, name)


@contextlib.contextmanager
def safe_output() -> Iterator[None]:
    """Escape control characters in everything printed to stdout and stderr meanwhile."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = SafeText(saved[0]), SafeText(saved[1])
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
