"""A whole number given as text from outside (a route's path or query, a command's option):
ASCII digits only, within bounds. ``str.isdigit`` takes superscripts ("²") that ``int`` then
refuses, and ``int`` takes other scripts' digits, underscores and spaces: neither is the rule."""

from __future__ import annotations

import re

_WHOLE = re.compile(r"-?[0-9]{1,40}")  # longer is no count, seed or priority


def parse_whole(text: str, lowest: int, highest: int) -> int | None:
    """``text`` as an int from ``lowest`` to ``highest``; None when it is anything else
    (the caller says what it wanted, in its own error shape)."""
    if not _WHOLE.fullmatch(text):
        return None
    value = int(text)
    return value if lowest <= value <= highest else None
