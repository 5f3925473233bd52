"""The waiting line as it stands now: the one reader of `core.controller.waiting_line`'s inputs.

It reads the pending jobs and our jobs on each server from the ledger, the servers and their
queues (all clients') from the status the controller last published when one runs, and the
typical run time from recently succeeded attempts. `batchline queue`, `batchline jobs`, the
API's 429, the composer's wait note and the contact sheet all read the line through it, so they
give the same place and estimate for the same job at the same moment.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from core.controller.admission import AdmissionInput, queue_target, requester_cap
from core.controller.published import read_published
from core.controller.waiting_line import (
    LineInput,
    Place,
    ServerLoad,
    estimate_seconds,
    waiting_line,
)
from core.ledger.settings import CONTROLLER, Settings

if TYPE_CHECKING:
    from collections.abc import Collection

    from core.controller.status import ControllerStatus
    from core.ledger import Ledger

RECENT_ATTEMPTS = 20  # succeeded attempts whose run times make the typical one
_NEW = "\0new"  # the ids of new jobs asked about (no job id starts so)


@dataclass(frozen=True)
class NewJobs:
    """Jobs not queued yet, asked about: where would they stand?"""

    requester: str
    count: int
    priority: int = 0


@dataclass(frozen=True)
class LineNow:
    """The places in line of the pending jobs asked about (and of new ones), with what the
    figures were worked out from."""

    places: dict[str, Place]
    servers: int
    capacity: int  # prompts the servers take at once (all clients')
    job_seconds: float | None
    new: list[Place] = field(default_factory=list)  # the new jobs', in their order

    def seconds_for(self, place: int) -> float | None:
        """Seconds until the job at ``place`` is done (the estimate of the places)."""
        return estimate_seconds(place, self.job_seconds, self.servers)


def line_now(
    ledger: Ledger,
    *,
    wanted: Collection[str] | None = None,
    new: NewJobs | None = None,
    servers: int | None = None,
    status: ControllerStatus | None = None,
) -> LineNow:
    """The line now: the places of the pending jobs ``wanted`` (None: all of them) and of
    ``new`` jobs, were they queued now.

    The servers are those of the controller's ``status`` (a window holds it), else of the
    status the running controller published; with none running, ``servers`` of them (default:
    the configured ones), holding only our jobs the ledger says they hold.
    """
    job_seconds = typical_run_seconds(ledger)
    live = status if status is not None else _live_status(ledger)
    loads, room = _servers(ledger, job_seconds, servers, live)
    waiting: dict[str, list[str]] = {}
    priorities: dict[str, int] = {}
    for job_id, requester, priority in ledger.waiting_jobs():
        waiting.setdefault(requester, []).append(job_id)
        priorities[job_id] = priority
    new_ids = _insert(waiting, priorities, new)
    target, cap = queue_target(room), requester_cap(replace(room, waiting=waiting))
    # Only jobs in the line: one being sent (or finished) would have the whole line walked.
    asked = None if wanted is None else [*(j for j in wanted if j in priorities), *new_ids]
    places = waiting_line(LineInput(waiting, loads, target, cap, job_seconds), asked)
    shown = places if wanted is None else {j: places[j] for j in wanted if j in places}
    return LineNow(
        {j: p for j, p in shown.items() if not j.startswith(_NEW)},
        len(loads),
        target * len(loads),
        job_seconds,
        [places[j] for j in new_ids],
    )


class LineCache:
    """`line_now` for a window, which asks with every status: read again only when the
    ledger's change feed or the servers' queues moved (a sampler step moves neither), so a long
    line is not walked ten times a second on the GUI thread."""

    def __init__(self, ledger: Ledger) -> None:
        self._ledger = ledger
        self._key: tuple[object, ...] | None = None
        self._line: LineNow | None = None

    def read(
        self,
        *,
        wanted: Collection[str] | None = None,
        new: NewJobs | None = None,
        status: ControllerStatus | None = None,
    ) -> LineNow:
        key = (
            self._ledger.latest_seq(),
            None if wanted is None else tuple(wanted),
            new,
            None if status is None else _queues(status),
        )
        if self._line is None or key != self._key:
            self._line = line_now(self._ledger, wanted=wanted, new=new, status=status)
            self._key = key
        return self._line


def _queues(status: ControllerStatus) -> tuple[object, ...]:
    """What of a status the line depends on (not the progress that changes at every step)."""
    servers = tuple((server.server, server.queue) for server in status.servers)
    return servers, bool(status.stopped), status.global_cap, status.per_requester_cap


def typical_run_seconds(ledger: Ledger) -> float | None:
    """Median run time of the recently succeeded attempts, None before any succeeded."""
    times = ledger.recent_run_seconds(RECENT_ATTEMPTS)
    return statistics.median(times) if times else None


def _insert(
    waiting: dict[str, list[str]], priorities: dict[str, int], new: NewJobs | None
) -> list[str]:
    """Put the new jobs in their requester's line, behind its jobs of at least their
    priority (as the newest); their ids."""
    if new is None or new.count <= 0:
        return []
    ids = [f"{_NEW}{n}" for n in range(new.count)]
    line = waiting.setdefault(new.requester, [])
    at = next((n for n, j in enumerate(line) if priorities[j] < new.priority), len(line))
    line[at:at] = ids
    return ids


def _servers(
    ledger: Ledger, job_seconds: float | None, count: int | None, status: ControllerStatus | None
) -> tuple[list[ServerLoad], AdmissionInput]:
    """The servers' loads, and admission's caps on each (its waiting line left empty)."""
    config = CONTROLLER.get(ledger)
    told = status is not None and bool(status.servers) and not status.stopped
    if status is not None and told:
        addresses = [server.server for server in status.servers]
        queues = [server.queue for server in status.servers]
        global_cap, per_requester = status.global_cap, status.per_requester_cap
    else:
        addresses = Settings.load(ledger).servers[: count or None]
        addresses += [""] * ((count or 0) - len(addresses))  # servers named elsewhere (--server)
        queues = [0] * len(addresses)
        global_cap, per_requester = config.global_cap, config.per_requester_cap
    ours = [ledger.in_flight_by_requester(address) if address else {} for address in addresses]
    if not told:  # ours on servers not configured (--server) count on the first
        anywhere = ledger.in_flight_by_requester()
        for requester, n in anywhere.items():
            known = sum(counts.get(requester, 0) for counts in ours)
            if n > known:
                ours[0][requester] = ours[0].get(requester, 0) + n - known
    loads = [
        ServerLoad(max(queue, sum(counts.values())), counts)
        for queue, counts in zip(queues, ours, strict=True)
    ]
    room = AdmissionInput(
        server_count=0,
        in_flight={},
        waiting={},
        global_cap=global_cap,
        per_requester_cap=per_requester,
        job_seconds=job_seconds,
        poll_interval=config.poll_active_s,
        deep_queue=config.deepens_queue,
        max_queue_depth=config.max_queue_depth,
        lone_requester_fills=config.lone_requester_fills,
    )
    return loads, room


def _live_status(ledger: Ledger) -> ControllerStatus | None:
    """The status of the controller running now, None when none is."""
    published = read_published(ledger)
    if published is None or published.stopped or published.silent(time.time()):
        return None
    return published.status
