"""How long new jobs would wait, read from the ledger alone.

Their place in line is behind every job not yet finished; the wait until the last is done comes
from the median run time (started to finished) of recently succeeded attempts and the number of
servers working at once. The window's batch composer and `batchline queue` both show this figure,
so the same ledger gives the same answer in both.
"""

from __future__ import annotations

import statistics
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.ledger import Ledger

RECENT_ATTEMPTS = 20  # succeeded attempts whose run times make the typical one


def wait_estimate(
    ledger: Ledger, servers: int, new_jobs: int = 0, priority: int | None = None
) -> tuple[int, float | None]:
    """The place in line of the last of ``new_jobs`` jobs added now (with none, of the last job
    already in line; of ``priority``, when given: only the jobs it waits behind count), and the
    seconds until it is done: None before any attempt succeeded."""
    ahead = ledger.unfinished_count() if priority is None else ledger.ahead_of(priority)
    return position_estimate(new_jobs, ahead, typical_run_seconds(ledger), servers)


def typical_run_seconds(ledger: Ledger) -> float | None:
    """Median run time of the recently succeeded attempts, None before any succeeded."""
    times = ledger.recent_run_seconds(RECENT_ATTEMPTS)
    return statistics.median(times) if times else None


def position_estimate(
    job_count: int, ahead: int, job_seconds: float | None, servers: int = 1
) -> tuple[int, float | None]:
    """Where the last of ``job_count`` new jobs would stand behind ``ahead`` others, and when
    it would finish (seconds), from the typical job duration and the servers working at once."""
    position = ahead + job_count
    return position, (position * job_seconds / max(1, servers) if job_seconds else None)


def live_estimate(
    ledger: Ledger,
    server_queue: int,
    in_flight: int,
    servers: int,
    new_jobs: int,
    priority: int = 0,
) -> tuple[int, float | None]:
    """As `wait_estimate`, from ComfyUI's queue as the controller last saw it: new jobs of
    ``priority`` stand behind every prompt there (``server_queue``, all clients, our
    ``in_flight`` among them) and behind our jobs not yet sent of at least their priority."""
    ahead = server_queue + max(0, ledger.ahead_of(priority) - in_flight)
    return position_estimate(new_jobs, ahead, typical_run_seconds(ledger), servers)
