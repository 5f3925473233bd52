"""Admission control, sans-IO: which pending jobs may be sent to ComfyUI now.

A job leaves `pending` only when (a) the server's running + pending count (all clients) is below
the global cap, (b) its requester's queued + running count is below the per-requester cap,
(c) it is its requester's turn (round-robin between requesters with waiting jobs; within a
requester, higher priority first), and (d) dispatch is not paused. The global cap is a ceiling:
only the deep queue, a setting the user turns on for very short jobs, keeps more prompts waiting
(so that a poll interval does not let the GPU idle), and it has its own ceiling.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence


@dataclass(frozen=True)
class Candidate:
    """The head of one requester's pending line."""

    job_id: str
    requester: str


@dataclass(frozen=True)
class AdmissionInput:
    """Everything the decision depends on, read by the controller beforehand."""

    server_count: int  # ComfyUI running + pending, all clients
    in_flight: Mapping[str, int]  # requester -> our queued + running (+ being submitted) jobs
    waiting: Mapping[str, Sequence[str]]  # requester -> pending job ids, in its own order
    global_cap: int
    per_requester_cap: int
    paused: bool = False
    last_served: str | None = None  # the requester served most recently (round-robin cursor)
    job_seconds: float | None = None  # typical job duration, when known
    poll_interval: float = 1.0
    deep_queue: bool = False  # keep more prompts waiting for very short jobs
    max_queue_depth: int = 8  # the deep queue's ceiling


def queue_target(inputs: AdmissionInput) -> int:
    """How many prompts ComfyUI may hold (running + waiting, all clients).

    The global cap. With the deep queue on, raised for very short jobs so that the prompts
    waiting behind the running one last at least two poll intervals, never above its ceiling.
    """
    target = inputs.global_cap
    if inputs.deep_queue and inputs.job_seconds and inputs.job_seconds > 0:
        needed = math.ceil(2 * inputs.poll_interval / inputs.job_seconds) + 1
        target = max(target, min(needed, inputs.max_queue_depth))
    return target


def admit(inputs: AdmissionInput) -> list[Candidate]:
    """The jobs to submit now, in submission order (round-robin between requesters)."""
    if inputs.paused:
        return []
    room = queue_target(inputs) - inputs.server_count
    lines = {req: list(ids) for req, ids in inputs.waiting.items() if ids}
    in_flight = dict(inputs.in_flight)
    chosen: list[Candidate] = []
    order = rotation(sorted(lines), inputs.last_served)
    while room > 0 and order:
        progressed = False
        for requester in list(order):
            if room <= 0:
                break
            if not lines[requester] or in_flight.get(requester, 0) >= inputs.per_requester_cap:
                order.remove(requester)
                continue
            chosen.append(Candidate(lines[requester].pop(0), requester))
            in_flight[requester] = in_flight.get(requester, 0) + 1
            room -= 1
            progressed = True
        if not progressed:
            break
    return chosen


def rotation(requesters: list[str], last_served: str | None) -> list[str]:
    """Requesters in round-robin order, starting after the one served last (the waiting line
    takes turns the same way)."""
    if last_served is None:
        return requesters
    after = [r for r in requesters if r > last_served]
    return after + [r for r in requesters if r <= last_served]
