"""One format for lengths of time: the table's elapsed column, estimates, the CLI."""

from __future__ import annotations

from core.durations import duration_text


def test_under_a_second_keeps_a_tenth() -> None:
    assert duration_text(0.43) == "0.4 s"
    assert duration_text(0.99) == "0.9 s", "cut, not rounded up to a second"
    assert duration_text(0.0) == "0.0 s"


def test_longer_times_in_whole_units() -> None:
    assert duration_text(12.7) == "12 s"
    assert duration_text(72) == "1 min 12 s"
    assert duration_text(7500) == "2 h 05 min"
