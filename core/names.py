"""What a name someone gives may hold: a preset's, a batch's, a requester's. One check, made
where each is written, so that no name can reorder the text around it on a screen (bidirectional
controls), break a line of a log or a table (control characters), or read as a path."""

from __future__ import annotations

import unicodedata

from core.errors import InputError

MAX_NAME = 200  # characters
# Unicode's explicit bidirectional formatting: embeddings, overrides, isolates, marks.
_BIDI_CLASSES = frozenset({"LRE", "RLE", "PDF", "LRO", "RLO", "LRI", "RLI", "FSI", "PDI"})
_BIDI_MARKS = frozenset({"\u200e", "\u200f", "\u061c"})
_CONTROL = frozenset({"Cc", "Cs", "Zl", "Zp"})  # controls, lone surrogates, line breaks


def checked_name(name: str, what: str) -> str:
    """``name`` unchanged when it may name ``what`` ("a preset", "a batch", "a requester").

    Raises:
        InputError: one line naming the rule it breaks: empty, over MAX_NAME characters, a
            control or bidirectional character, a path separator, or ``.``/``..``.
    """
    if not name.strip():
        raise InputError(f"{what} needs a non-empty name")
    if len(name) > MAX_NAME:
        raise InputError(f"{what} name has at most {MAX_NAME} characters, not {len(name)}")
    if name.strip() in (".", ".."):
        raise InputError(f"{what} cannot be called {name!r}")
    for char in name:
        rule = _broken_rule(char)
        if rule:
            raise InputError(f"{what} name cannot hold {rule} (U+{ord(char):04X}): {name!r}")
    return name


def _broken_rule(char: str) -> str:
    if char in "/\\":
        return "a path separator"
    if unicodedata.category(char) in _CONTROL:
        return "a control character"
    if char in _BIDI_MARKS or unicodedata.bidirectional(char) in _BIDI_CLASSES:
        return "a bidirectional control"
    return ""
