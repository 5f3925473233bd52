"""What an out-of-memory failure says about memory: how much the failing step asked for, how
much the device has (and had free), read from PyTorch's messages as ComfyUI passes them on;
and by how much a batch size or a picture size must shrink to fit.

The messages read (ComfyUI 0.3.64's recordings, PyTorch's allocators):

- CPU: ``DefaultCPUAllocator: can't allocate memory: you tried to allocate 4398046511104 bytes``
  (no size of the machine: for a server on this computer, its memory is this computer's).
- CUDA: ``Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.64 GiB of which 1.23 GiB
  is free``; older ``Tried to allocate 20.00 MiB (GPU 0; 23.65 GiB total capacity; 22.71 GiB
  already allocated; 5.62 MiB free; …)``.
- The caching allocator's table: ``Currently allocated : 21.57 GiB``, ``Requested : 2.50 GiB``,
  ``Device limit : 23.99 GiB``, ``Free (according to CUDA): 0 bytes``.
- MPS: ``(MPS allocated: 17.74 GB, other allocations: 1.13 GB, max allowed: 18.13 GB). Tried to
  allocate 256 bytes``.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from core.batch.workflow import SHRINK_SIZE
from core.ledger.attempt_error import ErrorKind

if TYPE_CHECKING:
    from core.ledger import Ledger

_UNITS = {"": 1, "B": 1, "BYTES": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40, "P": 2**50}
_SIZE = r"([\d.]+)\s*(bytes|[KMGTP]i?B|B)?"
_ASKED = (
    re.compile(r"tried to allocate " + _SIZE, re.IGNORECASE),
    re.compile(r"Requested\s*:\s*" + _SIZE),
)
_TOTAL = (
    re.compile(r"total capacity of " + _SIZE),
    re.compile(_SIZE + r" total capacity"),
    re.compile(r"Device limit\s*:\s*" + _SIZE),
    re.compile(r"max allowed:\s*" + _SIZE),
)
_FREE = (
    re.compile(r"of which " + _SIZE + r" is free"),
    re.compile(r"already allocated; " + _SIZE + r" free"),
    re.compile(r"Free \(according to CUDA\)\s*:\s*" + _SIZE),
)
_IN_USE = (
    re.compile(r"Currently allocated\s*:\s*" + _SIZE),
    re.compile(r"this process has " + _SIZE + r" memory in use"),
    re.compile(r"MPS allocated:\s*" + _SIZE),
)
_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


@dataclass(frozen=True, slots=True)
class MemoryTold:
    """Sizes in bytes, None where the failure did not say. ``has``: the device's memory (or,
    for a server on this computer that did not say, this computer's: ``has_local``)."""

    asked: int | None = None
    has: int | None = None
    free: int | None = None
    in_use: int | None = None
    has_local: bool = False

    @property
    def needed(self) -> int | None:
        """What the step needed in all: what was in use already and what it asked for."""
        if self.asked is None:
            return None
        if self.in_use is not None:
            return self.in_use + self.asked
        if self.has is not None and self.free is not None and not self.has_local:
            return max(0, self.has - self.free) + self.asked
        return self.asked

    def fitting_factor(self, kind: str) -> float | None:
        """By how much a ``kind`` (``size``: width and height, area shrinks with its square;
        ``batch size``: memory in step with it) must be scaled for the need to fit in what the
        server has; None when the failure does not tell, or it would fit already."""
        needed = self.needed
        if needed is None or self.has is None or needed <= self.has:
            return None
        share = self.has / needed
        return math.sqrt(share) if kind == SHRINK_SIZE else share


def read_memory(message: str, server: str = "") -> MemoryTold:
    """The sizes a failure's message says; for a server on this computer that did not say how
    much it has, this computer's memory (a CPU allocation failed: the machine's memory)."""
    has = _first(_TOTAL, message)
    local = False
    if has is None and urlsplit(server).hostname in _LOOPBACK:
        has, local = local_memory(), True
    return MemoryTold(
        _first(_ASKED, message), has, _first(_FREE, message), _first(_IN_USE, message), local
    )


def memory_told(ledger: Ledger, job_id: str) -> MemoryTold:
    """What the job's latest out-of-memory failure said (nothing known: all None)."""
    for attempt in reversed(ledger.attempts(job_id)):
        error = attempt.error
        if error is not None and (error.kind is ErrorKind.oom or "memory" in error.message):
            return read_memory(error.message, attempt.server)
    return MemoryTold()


def local_memory() -> int | None:
    """This computer's memory in bytes (None where the system does not say)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):
        return None


def size_text(size: int) -> str:
    """``4 TiB``, ``23.5 GiB``, ``512 MiB``, ``256 bytes``."""
    for unit, power in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 2**power:
            value = size / 2**power
            whole = value >= 100 or value == int(value)
            return f"{value:.0f} {unit}" if whole else f"{value:.1f} {unit}"
    return f"{size} bytes"


def _first(patterns: tuple[re.Pattern[str], ...], message: str) -> int | None:
    for pattern in patterns:
        found = pattern.search(message)
        if found:
            return _bytes(found.group(1), found.group(2) or "")
    return None


def _bytes(number: str, unit: str) -> int | None:
    try:
        value = float(number)
    except ValueError:
        return None
    unit = unit.upper()
    return round(value * _UNITS["B" if unit == "BYTES" else unit[:1]])
