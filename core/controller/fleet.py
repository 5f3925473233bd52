"""Every server as placement sees it, shared by the server links: which jobs each can run, and
which of those it takes next so that it keeps its loaded model (`core.placement.model_order`).

Admission's rules stay whole: it is given each requester's line of the jobs the asking server
can run (so a line headed by jobs only another server can run does not block the jobs behind
them), and decides whose turn each slot is, within the caps. Model order then picks, for each
slot, which of that requester's jobs of its highest waiting priority goes (its first
``LOOKAHEAD``): one of the server's loaded model first, within ``OrderBound`` (a job is passed
over at most 8 times, or 120 s after it was first passed over; see model_order.py for why).

Cheap per tick: each requester's line is one query (values as stored), a job's needs are
worked out once (per workflow and model values, `NeedsCache`) and kept by job id, and which
servers can run a job is kept by its needs until an offer or a connection changes.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from core.controller.placing import NeedsReader
from core.errors import UnknownRecord
from core.placement.model_order import Candidate, Choice, OrderBound, ServerSlots, next_for
from core.placement.placement import missing_on

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from core.controller import admission
    from core.controller.server_state import ServerState
    from core.ledger import Ledger
    from core.placement.needs import JobNeeds

LOOKAHEAD = 64  # the jobs of each requester's line model order chooses among
# The most of a requester's line read past jobs the asking server cannot run, per tick: the
# cost of a tick stays bounded; jobs further behind wait until those ahead go elsewhere.
MAX_SCAN = 2048
_KEPT_NEEDS = 50_000  # jobs whose needs are kept; past it the memo starts again


@dataclass(frozen=True)
class Waiting:
    """A pending job the asking server can run: its needs and its priority."""

    job_id: str
    needs: JobNeeds
    priority: int


@dataclass
class _Passed:
    count: int
    since: float  # when it was first passed over (time.monotonic)


class Fleet:
    """What the links share for placement (see the module's docstring)."""

    def __init__(self, ledger: Ledger, bound: OrderBound | None = None) -> None:
        self.ledger = ledger
        self.bound = bound or OrderBound()
        self.servers: dict[str, ServerState] = {}
        self.reader = NeedsReader(ledger)
        self._needs: dict[str, JobNeeds] = {}
        self._passed: dict[str, _Passed] = {}
        self._able: dict[int, frozenset[str]] = {}  # id(needs) -> the servers that can run it
        self._able_of: tuple[object, ...] = ()
        self._loaded_read: set[str] = set()
        self._taking: list[ServerState] = []
        # Jobs whose pictures a server is being sent before their attempts are written: the
        # other servers pass them over meanwhile (an upload is not to be wasted on a job that
        # another server then takes), job id -> that server.
        self._preparing: dict[str, str] = {}

    def add(self, server: ServerState) -> None:
        self.servers[server.url] = server

    def taking(self) -> list[ServerState]:
        """The servers that take jobs now: answering, their offer read since they (re)started."""
        return [s for s in self.servers.values() if s.answering and s.offer_fresh]

    # --- which jobs a server can run -------------------------------------------------------------

    def lines_for(self, server: ServerState, depth: int) -> dict[str, list[Waiting]]:
        """Per requester, the first ``depth`` (at least ``LOOKAHEAD``) pending jobs ``server``
        can run (admission's order), read past those it cannot run up to ``MAX_SCAN``."""
        self._look()
        depth = max(depth, LOOKAHEAD)
        lines: dict[str, list[Waiting]] = {}
        for requester in self.ledger.requesters_waiting():
            line = self._line_for(server, requester, depth)
            if line:
                lines[requester] = line
        return lines

    def _line_for(self, server: ServerState, requester: str, depth: int) -> list[Waiting]:
        found: list[Waiting] = []
        read = 0
        while len(found) < depth and read < MAX_SCAN:
            page = self.ledger.pending_line(requester, depth, read)
            read += len(page)
            for job in page:
                if self._preparing.get(job.id, server.url) != server.url:
                    continue  # another server is being sent its pictures
                needs = self._needs_of(job.id, job.batch, job.params_json)
                if needs is not None and server.url in self.able(needs):
                    found.append(Waiting(job.id, needs, job.priority))
            if len(page) < depth:
                break
        return found[:depth]

    def _needs_of(self, job_id: str, batch: str, params_json: str) -> JobNeeds | None:
        needs = self._needs.get(job_id)
        if needs is None:
            try:
                needs = self.reader.of(batch, json.loads(params_json))
            except (UnknownRecord, ValueError):
                return None  # its batch or workflow is damaged: reconcile says so when sent
            if len(self._needs) >= _KEPT_NEEDS:
                self._needs.clear()
            self._needs[job_id] = needs
        return needs

    def able(self, needs: JobNeeds) -> frozenset[str]:
        """The servers taking jobs now whose offers have everything ``needs`` names (as of
        the last ``_look``: each pass over the lines looks once)."""
        able = self._able.get(id(needs))
        if able is None:
            able = frozenset(
                s.url
                for s in self._taking
                if s.offer is not None and not missing_on(needs, s.offer)
            )
            self._able[id(needs)] = able
        return able

    def _look(self) -> None:
        """Which servers take jobs now; what each job's needs fit is forgotten when that (or
        an offer) changed."""
        self._taking = self.taking()
        key = tuple((s.url, id(s.offer)) for s in self._taking)
        if key != self._able_of:
            self._able, self._able_of = {}, key

    # --- which of them goes next ------------------------------------------------------------------

    def choose(
        self,
        server: ServerState,
        turns: Sequence[admission.Candidate],
        lines: Mapping[str, Sequence[Waiting]],
    ) -> list[tuple[Waiting, Choice]]:
        """For each of admission's ``turns`` (a requester's slot, in order), the job of that
        requester's line ``server`` takes, and why (each choice counts for the next)."""
        self._read_loaded()
        now = time.monotonic()
        windows = {requester: _window(line) for requester, line in lines.items()}
        left = {requester: self._candidates(window, now) for requester, window in windows.items()}
        jobs = {job.job_id: job for window in windows.values() for job in window}
        chosen: list[tuple[Waiting, Choice]] = []
        for turn in turns:
            candidates = left.get(turn.requester) or []
            choice = next_for(server.url, candidates, self._slots(), self.bound)
            if choice is None:
                continue
            self._sent(server, choice, now)
            left[turn.requester] = [
                self._counted(c, now) for c in candidates if c.job_id != choice.job_id
            ]
            chosen.append((jobs[choice.job_id], choice))
        return chosen

    def _candidates(self, window: Sequence[Waiting], now: float) -> list[Candidate]:
        return [
            self._counted(Candidate(job.job_id, job.needs.main_models, self.able(job.needs)), now)
            for job in window
        ]

    def _counted(self, candidate: Candidate, now: float) -> Candidate:
        """``candidate`` with the passes counted so far (and how long since the first)."""
        passed = self._passed.get(candidate.job_id)
        if passed is None:
            return candidate
        return replace(candidate, passed=passed.count, waited=now - passed.since)

    def _slots(self) -> list[ServerSlots]:
        return [ServerSlots(s.url, s.loaded) for s in self._taking]

    def _sent(self, server: ServerState, choice: Choice, now: float) -> None:
        server.loaded = choice.model
        self._passed.pop(choice.job_id, None)
        if len(self._passed) >= _KEPT_NEEDS:  # jobs cancelled while passed over
            self._passed.clear()
        for job_id in choice.passed:
            passed = self._passed.setdefault(job_id, _Passed(0, now))
            passed.count += 1

    def _read_loaded(self) -> None:
        """Each server's loaded model as the ledger knows it (the job last sent there), read
        once: a controller starting again picks up where the last one left each server."""
        for url, server in self.servers.items():
            if url in self._loaded_read:
                continue
            self._loaded_read.add(url)
            job = self.ledger.last_job_sent_to(url)
            if job is not None and not server.loaded:
                try:
                    server.loaded = self.reader.of_job(job).main_models
                except UnknownRecord:
                    continue

    def prepare(self, job_id: str, server: ServerState) -> bool:
        """Hold ``job_id`` for ``server`` while its pictures go there (``done`` lets it go);
        False when another server holds it (it is left to that one)."""
        holder = self._preparing.setdefault(job_id, server.url)
        return holder == server.url

    def done(self, job_ids: Sequence[str], server: ServerState) -> None:
        """The attempts of ``job_ids`` are written (or refused): ``server`` holds them no more."""
        for job_id in job_ids:
            if self._preparing.get(job_id) == server.url:
                del self._preparing[job_id]

    def forget(self, job_id: str) -> None:
        """``job_id`` was placed again (refused where it went): its needs stay, its passes go."""
        self._passed.pop(job_id, None)


def _window(line: Sequence[Waiting]) -> list[Waiting]:
    """The first ``LOOKAHEAD`` jobs of the line's highest priority (admission's rule kept)."""
    if not line:
        return []
    top = line[0].priority
    return [job for job in line if job.priority == top][:LOOKAHEAD]
