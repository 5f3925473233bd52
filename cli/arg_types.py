"""The types of the command's options: whole numbers in ASCII digits and finite decimal numbers,
each within its range; an axis over a list file's values, an axis over picture files, axis names
to zip, a wildcard mode. Each refused by argparse in one line naming the option otherwise."""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from core.batch.spec import GridAxis
from core.batch.text_lists import file_values, typed_values
from core.batch.wildcard_spec import MODES
from core.errors import CompositionError, InputError
from core.inputs import picture_paths
from core.whole_numbers import parse_whole

if TYPE_CHECKING:
    from collections.abc import Callable

WIDEST = 10**40  # past any whole number read (40 digits); narrower limits are checked later


def whole(lowest: int | None = None, highest: int | None = None) -> Callable[[str], int]:
    """An option's whole number (ASCII digits, an optional minus), from lowest to highest when
    given (else the command's own check says what it allows)."""
    low, high = -WIDEST if lowest is None else lowest, WIDEST if highest is None else highest

    def parse(text: str) -> int:
        value = parse_whole(text, low, high)
        if value is None:
            within = "" if lowest is None else f" from {lowest}"
            within += "" if highest is None else f" to {highest}"
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number{within}")
        return value

    return parse


def number(lowest: float, highest: float = math.inf) -> Callable[[str], float]:
    """An option's finite number (ASCII, as ``1.5`` or ``2e-3``) from lowest to highest."""

    def parse(text: str) -> float:
        try:
            value = float(text) if text.isascii() and "_" not in text else math.nan
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and lowest <= value <= highest):
            upper = "" if math.isinf(highest) else f" to {highest:g}"
            raise argparse.ArgumentTypeError(f"{text!r} is not a number from {lowest:g}{upper}")
        return value

    return parse


COUNT = whole(0)  # a number of things, 0 or more
SECONDS = number(0.0)  # a length of time
RATE = number(0.0, 1.0)  # a share of requests or answers
PORT = whole(0, 65535)


def _target(text: str, form: str) -> tuple[str, str]:
    target, equals, rest = text.partition("=")
    node, dot, name = target.strip().partition(".")
    if not (equals and node and dot and name):
        raise argparse.ArgumentTypeError(f"{text!r} is not of the form {form}")
    return target.strip(), rest


def file_axis(text: str) -> GridAxis:
    """``NODE.INPUT=@list.txt`` (one value per line), ``NODE.INPUT=@table.csv:COLUMN`` (a
    column by its header, or by its index from 0), or ``NODE.INPUT=TEXT`` (its lines)."""
    target, rest = _target(text, "NODE.INPUT=@LIST")
    try:
        if not rest.startswith("@"):
            return GridAxis(target, tuple(typed_values(rest, f"the values of {target}")))
        path, column = _list_file(rest[1:])
        return GridAxis(target, tuple(file_values(path, column)))
    except CompositionError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _list_file(text: str) -> tuple[Path, str | int | None]:
    """The file and column of ``table.csv:COLUMN`` (no column: the file alone)."""
    head, sep, column = text.rpartition(":")
    if not sep or not head.lower().endswith(".csv") or not column.strip():
        return Path(text).expanduser(), None
    name = column.strip()
    return Path(head).expanduser(), int(name) if name.isdigit() else name


@dataclass(frozen=True)
class PictureAxis:
    """``--images NODE.INPUT=DIR_OR_GLOB``: one job per picture file, in natural order; the
    files are checked and kept (``core.inputs.PictureStore``) once the ledger is open."""

    input: str
    paths: tuple[Path, ...]


def picture_axis(text: str) -> PictureAxis:
    """``NODE.INPUT=DIR_OR_GLOB``: a folder's pictures, a glob's files, or one file
    (``core.inputs.picture_paths``); nothing matching is refused naming it."""
    target, where = _target(text, "NODE.INPUT=DIR_OR_GLOB")
    if not where.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not of the form NODE.INPUT=DIR_OR_GLOB")
    try:
        return PictureAxis(target, tuple(picture_paths(where)))
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def axis_inputs(text: str) -> tuple[str, ...]:
    """``NODE.INPUT,NODE.INPUT,...``: the axes a zip group walks together (two or more)."""
    names = tuple(part.strip() for part in text.split(","))
    if len(names) < 2 or not all(_is_input(name) for name in names):
        raise argparse.ArgumentTypeError(f"{text!r} is not of the form NODE.INPUT,NODE.INPUT")
    return names


def _is_input(name: str) -> bool:
    node, dot, field = name.partition(".")
    return bool(node and dot and field)


def wildcard_mode(text: str) -> tuple[str, str]:
    """``NODE.INPUT=random|all``."""
    target, mode = _target(text, "NODE.INPUT=random|all")
    if mode.strip() not in MODES:
        raise argparse.ArgumentTypeError(f"{text!r}: the mode is random or all")
    return target, mode.strip()
