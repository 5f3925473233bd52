"""The types of the command's options: whole numbers in ASCII digits and finite decimal numbers,
each within its range, refused by argparse in one line naming the option otherwise."""

from __future__ import annotations

import argparse
import math
from typing import TYPE_CHECKING

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
