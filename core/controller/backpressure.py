"""Backpressure: new jobs refused whole, with a wait estimate, instead of piled up silently.

A batch is refused when it would take its requester past its quota of unfinished jobs, or all
requesters' unfinished jobs past the backlog's limit. The HTTP API answers 429 with the figures
of `QueueBusy`; `batchline queue` prints the same message and queues nothing.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from core.controller.line_now import NewJobs, line_now
from core.errors import BatchTooLarge, InputError, QueueBusy
from core.ledger.settings import MAX_BACKLOG, MAX_PENDING_PER_REQUESTER

if TYPE_CHECKING:
    from collections.abc import Callable

    from core.ledger import Ledger

# Seconds a refused client is told to wait before any job has succeeded (no estimate yet).
UNKNOWN_WAIT_RETRY_S = 10
MAX_RETRY_AFTER_S = 3600


@dataclass(frozen=True)
class Limits:
    """How many unfinished jobs one requester, and all of them together, may have."""

    max_pending_per_requester: int = MAX_PENDING_PER_REQUESTER.default
    max_backlog: int = MAX_BACKLOG.default

    def __post_init__(self) -> None:
        for name in ("max_pending_per_requester", "max_backlog"):
            if getattr(self, name) < 1:
                raise InputError(f"{name.replace('_', '-')} must be at least 1")

    @classmethod
    def load(cls, ledger: Ledger) -> Limits:
        return cls(MAX_PENDING_PER_REQUESTER.get(ledger), MAX_BACKLOG.get(ledger))

    def with_overrides(
        self, max_pending_per_requester: int | None, max_backlog: int | None
    ) -> Limits:
        """A copy with the limits given (None: kept)."""
        given = {"max_pending_per_requester": max_pending_per_requester, "max_backlog": max_backlog}
        return replace(self, **{name: n for name, n in given.items() if n is not None})


def room_check(
    ledger: Ledger, limits: Limits, servers: int | None = None
) -> Callable[[str, int, int], None]:
    """``check_room`` for ``queue_batch``'s ``check``: called with the requester, the number
    of jobs composed and their priority, before any is created."""
    return functools.partial(check_room, ledger, limits, servers)


@dataclass(frozen=True)
class Refusal:
    """Why new jobs do not fit now, and how many jobs must finish first."""

    reason: str  # "requester_quota" or "backlog"
    why: str
    over: int


def refusal(ledger: Ledger, limits: Limits, requester: str, count: int) -> Refusal | None:
    """Why ``count`` new jobs of ``requester`` do not fit within ``limits`` now (None: they
    do); a few index searches, cheap enough to ask with every status.

    Raises:
        BatchTooLarge: the batch alone is more than a limit: it would never fit.
    """
    for limit, what in (
        (limits.max_pending_per_requester, "one requester may have unfinished"),
        (limits.max_backlog, "the backlog may hold"),
    ):
        if count > limit:
            raise BatchTooLarge(
                f"a batch of {count} jobs is more than the {limit} {what}: split it"
            )
    mine, active = ledger.unfinished_count(requester), ledger.unfinished_count()
    if mine + count > limits.max_pending_per_requester:
        why = (
            f"{requester} has {mine} unfinished jobs and may have "
            f"{limits.max_pending_per_requester}"
        )
        return Refusal("requester_quota", why, mine + count - limits.max_pending_per_requester)
    if active + count > limits.max_backlog:
        why = f"the backlog holds {active} unfinished jobs and may hold {limits.max_backlog}"
        return Refusal("backlog", why, active + count - limits.max_backlog)
    return None


def check_room(
    ledger: Ledger,
    limits: Limits,
    servers: int | None,
    requester: str,
    count: int,
    priority: int = 0,
) -> None:
    """Raise unless ``count`` new jobs of ``requester`` fit within ``limits`` now.

    Raises:
        BatchTooLarge: the batch alone is more than a limit: it would never fit.
        QueueBusy: it does not fit now (`refusal`); says why, the place in line the last new
            job (of ``priority``) would have and its estimate (`core.controller.line_now`:
            ``servers`` when no controller runs), and how long until there is room.
    """
    refused = refusal(ledger, limits, requester, count)
    if refused is None:
        return
    line = line_now(ledger, wanted=(), new=NewJobs(requester, count, priority), servers=servers)
    last, room = line.new[-1], line.seconds_for(refused.over)
    retry_after = (
        UNKNOWN_WAIT_RETRY_S if room is None else min(MAX_RETRY_AFTER_S, max(1, math.ceil(room)))
    )
    when = f"about {retry_after} s" if room is not None else f"{retry_after} s (no estimate yet)"
    raise QueueBusy(
        f"busy: {refused.why}; the {count} new jobs were not queued (the last would be at "
        f"position {last.place}); try again in {when}",
        refused.reason,
        last.place,
        None if last.estimate_s is None else round(last.estimate_s, 1),
        retry_after,
        refused.why,
        None if room is None else round(room, 1),
    )
