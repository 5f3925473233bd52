"""Admission control, sans-IO: which pending jobs may be sent to ComfyUI now.

A job leaves `pending` only when (a) the server's running + pending count (all clients) is below
the queue target, (b) its requester's queued + running count is below its cap, (c) it is its
requester's turn (round-robin between requesters with waiting jobs; within a requester, higher
priority first), and (d) dispatch is not paused.

Why the queue deepens (issue 28). The prompts waiting in ComfyUI behind the running one are
the GPU's reserve while Batchline refills: a finished prompt's event wakes the controller, but
a tick already under way (reading history, downloading pictures, a ledger sync) or a busy
machine delays the refill, and without the WebSocket only the poll refills. With the shallow
caps (3: one running, two waiting) a 90 ms job leaves 180 ms of reserve, and any hiccup longer
than that idles the GPU: turbo-class jobs stretched the server's makespan by 1.03-1.19. So the
target keeps at least two poll intervals of work waiting, ``ceil(2 × poll / job) + 1`` prompts
for the measured typical job, never fewer than the global cap nor more than ``max_queue_depth``
(8 by default: 0.7 s of reserve for a 90 ms job; a job of a second or more keeps the 3).

Who decides how deep (`AdmissionInput.deep_queue`, `.lone_requester_fills`; the controller's
knob ``deep_queue`` says which, `core.ledger.settings.ControllerConfig`):
- ``"auto"`` (the default): a cap left at its default adapts, the global one to the target
  above, the per-requester one for a lone requester (no other requester has jobs waiting: it
  may fill the target; when others wait, each is held to the per-requester cap again, so the
  turns stay fair). A cap the artist set to another value is a ceiling.
- ``true``: the global cap deepens for short jobs as above; the per-requester cap stays a
  ceiling (``--deep-queue 8 --per-requester 8`` deepens both).
- ``false``: both caps are ceilings, however short the jobs.
``max_queue_depth`` is always a ceiling of the deepening: ComfyUI never holds more than it (nor
than the global cap, when that is higher).
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
    deep_queue: bool = False  # the target deepens for short jobs (above the global cap)
    max_queue_depth: int = 8  # the deep queue's ceiling
    lone_requester_fills: bool = False  # a requester alone in waiting may fill the target


def queue_target(inputs: AdmissionInput) -> int:
    """How many prompts ComfyUI may hold (running + waiting, all clients).

    The global cap. With the deep queue, raised for short jobs so that the prompts waiting
    behind the running one last at least two poll intervals, never above its ceiling.
    """
    target = inputs.global_cap
    if inputs.deep_queue and inputs.job_seconds and inputs.job_seconds > 0:
        needed = math.ceil(2 * inputs.poll_interval / inputs.job_seconds) + 1
        target = max(target, min(needed, inputs.max_queue_depth))
    return target


def requester_cap(inputs: AdmissionInput) -> int:
    """The most jobs in flight one requester may have now: the per-requester cap, or, when it
    adapts and no other requester has jobs waiting, the queue target (a lone requester keeps
    the GPU fed; a second one waiting brings each back to the cap, so turns stay fair)."""
    lone = sum(1 for ids in inputs.waiting.values() if ids) <= 1
    if inputs.lone_requester_fills and lone:
        return max(inputs.per_requester_cap, queue_target(inputs))
    return inputs.per_requester_cap


def admit(inputs: AdmissionInput) -> list[Candidate]:
    """The jobs to submit now, in submission order (round-robin between requesters)."""
    if inputs.paused:
        return []
    room = queue_target(inputs) - inputs.server_count
    cap = requester_cap(inputs)
    lines = {req: list(ids) for req, ids in inputs.waiting.items() if ids}
    in_flight = dict(inputs.in_flight)
    chosen: list[Candidate] = []
    order = rotation(sorted(lines), inputs.last_served)
    while room > 0 and order:
        progressed = False
        for requester in list(order):
            if room <= 0:
                break
            if not lines[requester] or in_flight.get(requester, 0) >= cap:
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
