"""A length of time as people read it: one format for the window's table, its estimates and
the CLI."""

from __future__ import annotations

import math


def duration_text(seconds: float) -> str:
    """``0.4`` → ``0.4 s``, ``12.7`` → ``12 s``, ``72`` → ``1 min 12 s``, ``7500`` → ``2 h 05 min``.

    Under a second it keeps a tenth (a fast job took some time, never "0 s"); past that, whole
    units, cut rather than rounded, so a running clock never goes back.
    """
    if seconds < 1:
        return f"{math.floor(max(0.0, seconds) * 10 + 1e-6) / 10:.1f} s"  # 0.39999… is 0.4
    whole = int(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"
