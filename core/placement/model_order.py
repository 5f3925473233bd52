"""Model-aware order: which of the jobs admission allows goes to which free server next, so
that a server runs the jobs of its loaded model first, within a bound so none waits for ever.

ComfyUI keeps the last prompt's models loaded; a job of another checkpoint loads it (seconds
for a real one) and re-encodes the prompts. So a free server takes, in admission's order:

1. a job past the bound (passed over `max_passed` times or waiting `max_wait` seconds);
2. else a job of the model it has loaded;
3. else a job no other server has loaded (others' jobs are left for them), else the first.

A job is passed over when a job behind it in admission's order goes to a server that could have
run it. Passing stops at the bound, so no job is passed over more than `max_passed` times, and
none waits past `max_wait` while a free server could run it (unless jobs ahead of it are past
the bound as well). A server's loaded model is that of the last job sent to it: what it will
have loaded when its next job starts. Pure: the controller keeps the counts and the clock.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from core.placement.needs import JobNeeds, ModelKey
    from core.placement.placement import Placement

# Defaults: 8 jobs is one grid row or two of a turbo model (a few seconds of a fast GPU, under
# a minute of SDXL); 120 s lets a switch of a several-GB checkpoint (5-20 s) pay for itself
# several times over while an artist's odd job still starts within two minutes.
DEFAULT_MAX_PASSED = 8
DEFAULT_MAX_WAIT = 120.0


@dataclass(frozen=True)
class OrderBound:
    """How long a job may be passed over for others of a loaded model."""

    max_passed: int = DEFAULT_MAX_PASSED
    max_wait: float = DEFAULT_MAX_WAIT


@dataclass(frozen=True)
class Candidate:
    """A job admission allows now, with what placement and the controller know of it.

    Args:
        job_id: the job.
        model: its main models (checkpoints, diffusion models); empty if none.
        servers: the servers that can run it (placement's).
        waited: seconds since a job behind it first went ahead of it (the controller keeps
            it: a job merely queued long ago has not waited for another model).
        passed: how many times a job behind it went first.
    """

    job_id: str
    model: ModelKey
    servers: frozenset[str]
    waited: float = 0.0
    passed: int = 0

    def past(self, bound: OrderBound) -> bool:
        return self.passed >= bound.max_passed or self.waited >= bound.max_wait


def candidate(
    job_id: str, needs: JobNeeds, placement: Placement, *, waited: float = 0.0, passed: int = 0
) -> Candidate:
    """A job as model order sees it: its main models, and the servers placement allows."""
    return Candidate(job_id, needs.main_models, frozenset(placement.servers), waited, passed)


@dataclass(frozen=True)
class ServerSlots:
    """A server's model (that of the last job sent to it) and the jobs it can take now."""

    name: str
    loaded: ModelKey = frozenset()
    free: int = 1


class Why(StrEnum):
    """Why a job went to a server."""

    past_bound = "past_bound"
    loaded_model = "loaded_model"
    only_server = "only_server"
    next_in_line = "next_in_line"


@dataclass(frozen=True)
class Choice:
    """One job sent to one server, why, and the jobs ahead of it that it passed."""

    job_id: str
    server: str
    why: Why
    model: ModelKey = frozenset()
    passed: tuple[str, ...] = ()


def choice_text(choice: Choice) -> str:
    """An attempt's placement reason: "gpu-1: its loaded model" (the one rendering)."""
    names = ", ".join(sorted(choice.model)) or "its models"
    words = {
        Why.past_bound: "waited past the bound",
        Why.loaded_model: "its loaded model",
        Why.only_server: f"the only server with {names}",
        Why.next_in_line: "next in line",
    }
    return f"{choice.server}: {words[choice.why]}"


def next_choice(
    candidates: Sequence[Candidate],
    servers: Sequence[ServerSlots],
    bound: OrderBound = OrderBound(),
) -> Choice | None:
    """The next job to send and where, or None when no free server can run any candidate.

    Args:
        candidates: the jobs admission allows, in admission's order.
        servers: every connected server, in a stable order, with its free slots.
        bound: how far a job may be passed over.
    """
    free = [s for s in servers if s.free > 0]
    for pick in (_past_bound, _loaded_model, _homeless, _first):
        found = pick(candidates, free, servers, bound)
        if found is not None:
            job, server, why = found
            return _choice(candidates, job, server, why)
    return None


def next_for(
    server: str,
    candidates: Sequence[Candidate],
    servers: Sequence[ServerSlots],
    bound: OrderBound = OrderBound(),
) -> Choice | None:
    """The job `server` takes next when it has room (a server link asks for itself).

    The others count as busy, but their loaded models still keep their jobs for them.
    """
    asking = [s if s.name == server else replace(s, free=0) for s in servers]
    return next_choice(candidates, asking, bound)


_Found = tuple[Candidate, ServerSlots, Why] | None


def _past_bound(
    jobs: Sequence[Candidate], free: list[ServerSlots], _: object, bound: OrderBound
) -> _Found:
    for job in jobs:
        if job.past(bound) and (server := _best_server(job, free)) is not None:
            return job, server, Why.past_bound
    return None


def _loaded_model(
    jobs: Sequence[Candidate], free: list[ServerSlots], _: object, __: OrderBound
) -> _Found:
    for job in jobs:
        for server in _runnable(job, free):
            if _has_loaded(server, job):
                return job, server, Why.loaded_model
    return None


def _homeless(
    jobs: Sequence[Candidate], free: list[ServerSlots], every: Sequence[ServerSlots], _: OrderBound
) -> _Found:
    """The first job whose model no server that can run it has loaded (busy ones included)."""
    return _first(
        [j for j in jobs if not any(_has_loaded(s, j) for s in _runnable(j, every))], free, every, _
    )


def _first(
    jobs: Sequence[Candidate], free: list[ServerSlots], every: Sequence[ServerSlots], _: OrderBound
) -> _Found:
    for job in jobs:
        server = _best_server(job, free)
        if server is not None:
            return job, server, _why_fresh(job, every)
    return None


def _why_fresh(job: Candidate, every: Sequence[ServerSlots]) -> Why:
    """`only_server` when others are connected but only one can run the job's models."""
    alone = len(job.servers) == 1 and len(every) > 1 and bool(job.model)
    return Why.only_server if alone else Why.next_in_line


def _runnable(job: Candidate, servers: Iterable[ServerSlots]) -> list[ServerSlots]:
    return [s for s in servers if s.name in job.servers]


def _has_loaded(server: ServerSlots, job: Candidate) -> bool:
    return bool(job.model) and job.model <= server.loaded


def _best_server(job: Candidate, free: list[ServerSlots]) -> ServerSlots | None:
    """A free server that can run `job`: one with its model loaded, else the first."""
    able = _runnable(job, free)
    loaded = [s for s in able if _has_loaded(s, job)]
    return next(iter(loaded or able), None)


def _choice(jobs: Sequence[Candidate], job: Candidate, server: ServerSlots, why: Why) -> Choice:
    ahead = jobs[: jobs.index(job)]
    passed = tuple(other.job_id for other in ahead if server.name in other.servers)
    return Choice(job.job_id, server.name, why, job.model, passed)


def plan(
    candidates: Sequence[Candidate],
    servers: Sequence[ServerSlots],
    bound: OrderBound = OrderBound(),
) -> list[Choice]:
    """Every choice until no free server can run a candidate, each applied to the next.

    What the controller does one tick at a time; whole, it is what tests and benchmarks check.
    """
    jobs, slots, choices = list(candidates), list(servers), []
    while (choice := next_choice(jobs, slots, bound)) is not None:
        choices.append(choice)
        jobs = _after(jobs, choice)
        slots = [_sent(s, choice) if s.name == choice.server else s for s in slots]
    return choices


def _after(jobs: list[Candidate], choice: Choice) -> list[Candidate]:
    passed = set(choice.passed)
    return [
        replace(job, passed=job.passed + (job.job_id in passed))
        for job in jobs
        if job.job_id != choice.job_id
    ]


def _sent(server: ServerSlots, choice: Choice) -> ServerSlots:
    return replace(server, loaded=choice.model, free=server.free - 1)
