"""The waiting line, sans-IO: where each pending job stands and when it would be done.

The order is admission's own (`core.controller.admission.admit`): each server, whenever it has
room (``queue_target`` prompts of all clients), takes the next requester in turn after the one
it served last (round-robin), skipping a requester with ``per_requester_cap`` jobs on it, and
sends that requester's first pending job (its line: higher priority first, then oldest). What
admission cannot know is when prompts finish; the line assumes each takes the typical time, so
that they finish in the order they entered, the servers side by side (their first prompts,
then their second ones, ...), and each finish gives its server's room to the next job.

A job's place counts every prompt that finishes before it, all clients' (ComfyUI's queues
first), plus itself: 1 is the next to be done. Its estimate is ``place × job_seconds /
servers``. The CLI, the API's 429, the composer, the contact sheet and `batchline jobs` all
read these figures (through `core.controller.line_now`), so they agree at the same moment.

Left out: a pause (the places are those once dispatch resumes), the controller's round-robin
cursors (its status does not publish them; a reader walks from the first requester), and run
times that differ from the typical one. So a place is exact for admission's rules and "about"
for the clock.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from core.controller.admission import rotation

if TYPE_CHECKING:
    from collections.abc import Collection, Mapping, Sequence


@dataclass(frozen=True)
class ServerLoad:
    """One server as admission sees it."""

    queue: int  # ComfyUI's running + pending, all clients
    in_flight: Mapping[str, int] = field(default_factory=dict)  # requester -> ours among them
    last_served: str | None = None  # its round-robin cursor, when known


@dataclass(frozen=True)
class LineInput:
    """The pending jobs and the servers, read beforehand (`core.controller.line_now.line_now`)."""

    waiting: Mapping[str, Sequence[str]]  # requester -> its pending job ids, in its own order
    servers: Sequence[ServerLoad]
    queue_target: int  # prompts a server may hold (`admission.queue_target`)
    per_requester_cap: int
    job_seconds: float | None = None  # the typical run time, None before any job succeeded


class Place(NamedTuple):
    """Where one pending job stands (a tuple: a long line makes many)."""

    place: int  # prompts done before it, plus one
    estimate_s: float | None  # seconds until it is done
    server: int  # the index of the server it would go to
    at_once: bool  # admission sends it now, without waiting for a prompt to finish


def waiting_line(inputs: LineInput, wanted: Collection[str] | None = None) -> dict[str, Place]:
    """Each pending job's place, in the order admission sends them (only as far as the last of
    ``wanted`` when given: a long line need not be walked past the jobs asked about)."""
    walk = _Walk(inputs, wanted)
    for s in range(len(walk.servers)):
        walk.send(s, at_once=True)
    while walk.goes_on():
        _, s, requester = heapq.heappop(walk.finishing)
        walk.servers[s].finished(requester)
        walk.send(s, at_once=False)
    return walk.places


class _Walk:
    """The line walked: each server's room and its prompts in the order they finish."""

    def __init__(self, inputs: LineInput, wanted: Collection[str] | None) -> None:
        self.inputs = inputs
        self.servers = [_Server(load) for load in inputs.servers] or [_Server(ServerLoad(0))]
        self.lines = {r: list(reversed(ids)) for r, ids in inputs.waiting.items() if ids}
        self.order = sorted(self.lines)  # the requesters waiting, in turn order
        self._turns: dict[str | None, list[str]] = {}  # last served -> whose turn next, in order
        # (order entered, server, requester of a job sent in the walk): a heap, first done first
        self.finishing: list[tuple[int, int, str | None]] = [
            (n, s, None) for s, server in enumerate(self.servers) for n in range(server.queue)
        ]
        heapq.heapify(self.finishing)
        self.entered = max((n for n, _, _ in self.finishing), default=-1) + 1
        self.ahead = len(self.finishing)
        self.left = None if wanted is None else set(wanted)
        self.places: dict[str, Place] = {}

    def goes_on(self) -> bool:
        return bool(self.lines and self.finishing) and (self.left is None or bool(self.left))

    def send(self, s: int, *, at_once: bool) -> None:
        """What server ``s`` takes while it has room, as admission would send it."""
        server, inputs, lines, places = self.servers[s], self.inputs, self.lines, self.places
        servers, cap = len(self.servers), inputs.per_requester_cap
        while lines and server.queue < inputs.queue_target:
            requester = server.next_requester(self._turns_after(server.last_served), cap)
            if requester is None:
                return
            line = lines[requester]
            job_id = line.pop()
            if not line:
                del lines[requester]
                self.order.remove(requester)
                self._turns.clear()
            server.took(requester)
            place = self.ahead + len(places) + 1
            seconds = estimate_seconds(place, inputs.job_seconds, servers)
            places[job_id] = Place(place, seconds, s, at_once)
            heapq.heappush(self.finishing, (self.entered, s, requester))
            self.entered += 1
            if self.left is not None:
                self.left.discard(job_id)

    def _turns_after(self, last_served: str | None) -> list[str]:
        """The waiting requesters in turn order after ``last_served`` (`admission.rotation`)."""
        if last_served not in self._turns:
            self._turns[last_served] = rotation(self.order, last_served)
        return self._turns[last_served]


def estimate_seconds(place: int, job_seconds: float | None, servers: int) -> float | None:
    """Seconds until the job at ``place`` is done: None before any job succeeded."""
    return place * job_seconds / max(1, servers) if job_seconds else None


class _Server:
    """A server's room, our jobs on it per requester and its round-robin cursor, as the line
    is walked."""

    def __init__(self, load: ServerLoad) -> None:
        self.queue = load.queue
        self.in_flight = {r: n for r, n in load.in_flight.items() if n > 0}
        self.last_served = load.last_served
        # Which of the prompts there before the walk are ours is not known: foreign ones are
        # taken to finish first, then ours, requester by requester (in name order).
        self._ours = [r for r in sorted(self.in_flight) for _ in range(self.in_flight[r])]
        self._ours.reverse()  # popped from the end
        self._foreign = max(0, load.queue - len(self._ours))

    def next_requester(self, turns: list[str], cap: int) -> str | None:
        """The first requester of ``turns`` below its cap here, None if none is."""
        return next((r for r in turns if self.in_flight.get(r, 0) < cap), None)

    def took(self, requester: str) -> None:
        self.queue += 1
        self.in_flight[requester] = self.in_flight.get(requester, 0) + 1
        self.last_served = requester

    def finished(self, requester: str | None) -> None:
        """A prompt here finished: a job sent during the walk (``requester``'s), or one there
        before it (None)."""
        self.queue -= 1
        if requester is None:
            if self._foreign or not self._ours:
                self._foreign = max(0, self._foreign - 1)
                return
            requester = self._ours.pop()
        self.in_flight[requester] -= 1
