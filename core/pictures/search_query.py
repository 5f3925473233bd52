"""The picture search's query language (docs/search.md), read into what the ledger's index runs.

    fox snow                 both words, anywhere (prompt, negative, preset, models, values, ...)
    "red fox"                the words side by side
    fox*                     a word starting so
    -blurry  -model:sd15     not this word / not this filter
    prompt:fox  negative:blurry  preset:portrait  model:sdxl  lora:detail  batch:evening
    server:gpu-1  value:euler  value:cfg=7.5      one field only (a value with spaces: "quoted")
    seed:42  seed:*42  seed:42*                  a seed that is, ends with, starts with 42
    is:starred  is:rejected  is:unmarked  is:marked
    date:2026-12-01  date:2026-12  after:2026-12-01  before:2026-12-24   (local dates)

Every part must hold (AND). A part that cannot be read raises ``InputError`` naming it.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from core.errors import InputError
from core.ledger.picture_index import (
    HIDDEN_COLUMNS,
    MARK_WORDS,
    DateSpan,
    PictureQuery,
    fts_string,
)

if TYPE_CHECKING:
    from collections.abc import Iterator

# The fields that search one column of the index, by the name written before the colon.
TEXT_FIELDS = {
    "prompt": "prompt",
    "negative": "negative",
    "neg": "negative",
    "preset": "preset",
    "model": "model",
    "lora": "lora",
    "value": "value",
    "batch": "batch",
    "server": "server",
}
OTHER_FIELDS = ("seed", "is", "date", "after", "before")
FIELDS = (*TEXT_FIELDS, *OTHER_FIELDS)
MARKS = ("starred", "rejected", "marked", "unmarked")
_ANY_MARK = f"mark : ({' OR '.join(fts_string(word) for word in MARK_WORDS.values())})"
_PLAIN = f"- {{{' '.join(HIDDEN_COLUMNS)}}} : "
_PART = re.compile(
    r"""(?P<neg>-)?(?:(?P<field>[A-Za-z_]+):)?(?:"(?P<quoted>[^"]*)"|(?P<bare>[^\s"]+))?"""
)
_SEED = re.compile(r"(?P<start>\*)?(?P<digits>\d+)(?P<end>\*)?")
_DATE = re.compile(r"\d{4}(-\d{2}(-\d{2})?)?")
_DATE_FORMATS = {0: ("%Y", "year"), 1: ("%Y-%m", "month"), 2: ("%Y-%m-%d", "day")}


@dataclass
class _Parts:
    """What the parts read so far make: FTS5 expressions that must and must not match."""

    must: list[str] = field(default_factory=list)
    must_not: list[str] = field(default_factory=list)
    spans: list[DateSpan] = field(default_factory=list)

    def add(self, expression: str, negated: bool) -> None:
        (self.must_not if negated else self.must).append(expression)


def parse_query(text: str) -> PictureQuery:
    """The search ``text`` asks for; an empty text finds every picture.

    Raises:
        InputError: a part cannot be read (an unclosed quote, an unknown field, a field with
            no value, a seed that is not a number, a date that is not one); the message
            quotes the part.
    """
    parts = _Parts()
    for negated, name, value, quoted, written in _lexed(text):
        if name is None:
            parts.add(_plain(value, quoted, written), negated)
        else:
            _add_field(parts, negated, name.lower(), value, quoted, written)
    return PictureQuery(
        match=" AND ".join(parts.must) or None,
        exclude=" OR ".join(parts.must_not) or None,
        spans=tuple(parts.spans),
    )


def _lexed(text: str) -> Iterator[tuple[bool, str | None, str, bool, str]]:
    """Each part: (negated, field or None, value, whether quoted, the part as written)."""
    _check_characters(text)
    position = 0
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position >= len(text):
            return
        found = _PART.match(text, position)
        assert found is not None  # every group is optional: it matches, if only ""
        written = found.group(0)
        quoted = found.group("quoted")
        value = quoted if quoted is not None else found.group("bare")
        name = found.group("field")
        if value is None:
            if text.startswith('"', found.end()):
                raise InputError(f"the quote at character {found.end() + 1} is never closed")
            what = f"{name}: needs a value" if name else "a lone '-' negates nothing"
            raise InputError(f"{what} ({written!r})")
        yield bool(found.group("neg")), name, value, quoted is not None, written
        position = found.end()


def _check_characters(text: str) -> None:
    for index, char in enumerate(text):
        if unicodedata.category(char) in ("Cc", "Cs") and not char.isspace():
            raise InputError(
                f"the search holds a control character (U+{ord(char):04X}) at character {index + 1}"
            )


def _plain(value: str, quoted: bool, written: str) -> str:
    """A word or a phrase, in every column but the hidden ones."""
    return _PLAIN + _term(value, quoted, written)


def _term(value: str, quoted: bool, written: str) -> str:
    """An FTS5 phrase of ``value`` (a prefix one for a bare ``word*``)."""
    prefix = not quoted and value.endswith("*")
    words = value.rstrip("*") if prefix else value
    if not any(unicodedata.category(char)[0] in "LN" for char in words):
        raise InputError(f"{written!r} has no letters or digits to search for")
    return fts_string(words) + (" *" if prefix else "")


def _add_field(
    parts: _Parts, negated: bool, name: str, value: str, quoted: bool, written: str
) -> None:
    if name in TEXT_FIELDS:
        parts.add(f"{TEXT_FIELDS[name]} : {_term(value, quoted, written)}", negated)
    elif name == "seed":
        parts.add(_seed(value, written), negated)
    elif name == "is":
        _add_mark(parts, negated, value, written)
    elif name in ("date", "after", "before"):
        parts.spans.append(_span(name, value, written, inside=not negated))
    else:
        raise InputError(
            f"{written!r}: there is no field {name!r} (the fields are {', '.join(FIELDS)}); "
            "to search for a word with a colon, put it in quotes"
        )


def _seed(value: str, written: str) -> str:
    found = _SEED.fullmatch(value)
    if found is None or (found.group("start") and found.group("end")):
        raise InputError(
            f"{written!r}: a seed is a whole number: seed:42 (exactly), seed:*42 (ending in "
            "42), seed:42* (starting with 42)"
        )
    digits = found.group("digits")
    if found.group("start"):
        return f"seed_end : {fts_string(digits[::-1])} *"
    return f"seed : {fts_string(digits)}" + (" *" if found.group("end") else "")


def _add_mark(parts: _Parts, negated: bool, value: str, written: str) -> None:
    mark = value.lower()
    if mark in ("starred", "rejected"):
        parts.add(f"mark : {fts_string(mark)}", negated)
    elif mark in ("marked", "unmarked"):
        parts.add(_ANY_MARK, negated != (mark == "unmarked"))
    else:
        raise InputError(f"{written!r}: is: takes {', '.join(MARKS)}")


def _span(name: str, value: str, written: str, *, inside: bool) -> DateSpan:
    """The local day, month or year ``value`` names, as a span: ``date:`` within it,
    ``after:`` from its start on, ``before:`` up to its start."""
    start, end = _period(value, written)
    if name == "after":
        return DateSpan(start, None, inside)
    if name == "before":
        return DateSpan(None, start, inside)
    return DateSpan(start, end, inside)


def _period(value: str, written: str) -> tuple[float, float]:
    """The start and end (timestamps, local time) of the day, month or year ``value``."""
    pattern, unit = _DATE_FORMATS.get(value.count("-"), _DATE_FORMATS[0])
    try:
        if not _DATE.fullmatch(value):
            raise ValueError(value)
        start = datetime.strptime(value, pattern)  # the artist's local time
        if unit == "day":
            end = start + timedelta(days=1)
        elif unit == "month":
            end = start.replace(year=start.year + start.month // 12, month=start.month % 12 + 1)
        else:
            end = start.replace(year=start.year + 1)
        return start.timestamp(), end.timestamp()
    except (ValueError, OverflowError, OSError):
        raise InputError(
            f"{written!r}: a date is written 2026-12-01 (or 2026-12, or 2026)"
        ) from None
