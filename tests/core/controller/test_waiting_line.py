"""The waiting line, sans-IO: the places it predicts are the order admission really sends in."""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import given, settings
from hypothesis import strategies as st

from core.controller.admission import AdmissionInput, admit
from core.controller.waiting_line import LineInput, ServerLoad, waiting_line

REQUESTERS = ["ann", "bob", "cy"]


@dataclass
class _Server:
    """A server in the simulation: its prompts in the order they entered, with who sent them."""

    prompts: list[tuple[tuple[int, int], str | None]] = field(default_factory=list)
    last_served: str | None = None

    def in_flight(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for _, requester in self.prompts:
            if requester is not None:
                counts[requester] = counts.get(requester, 0) + 1
        return counts


def sent_by_admission(inputs: LineInput) -> list[tuple[str, int, bool]]:
    """Run ``admit`` round after round, every server each round, one prompt finishing between
    rounds (the one that entered first, the servers side by side): the jobs in the order sent,
    with the server each went to and whether the first round sent it."""
    servers = [_Server(last_served=load.last_served) for load in inputs.servers]
    for s, (server, load) in enumerate(zip(servers, inputs.servers, strict=True)):
        ours = [r for r in sorted(load.in_flight) for _ in range(load.in_flight[r])]
        owners = [None] * (load.queue - len(ours)) + ours  # foreign ones finish first
        server.prompts = [((n, s), owner) for n, owner in enumerate(owners)]
    lines = {r: list(ids) for r, ids in inputs.waiting.items() if ids}
    sent: list[tuple[str, int, bool]] = []
    entered, first_round = 1_000_000, True
    while True:
        for s, server in enumerate(servers):
            chosen = admit(
                AdmissionInput(
                    server_count=len(server.prompts),
                    in_flight=server.in_flight(),
                    waiting={r: ids[: inputs.per_requester_cap] for r, ids in lines.items()},
                    global_cap=inputs.queue_target,
                    per_requester_cap=inputs.per_requester_cap,
                    last_served=server.last_served,
                )
            )
            for candidate in chosen:
                lines[candidate.requester].remove(candidate.job_id)
                server.prompts.append(((entered, s), candidate.requester))
                entered += 1
                sent.append((candidate.job_id, s, first_round))
            if chosen:
                server.last_served = chosen[-1].requester
        first_round = False
        busy = [server for server in servers if server.prompts]
        if not any(lines.values()) or not busy:
            return sent
        oldest = min(busy, key=lambda server: server.prompts[0][0])
        oldest.prompts.pop(0)


@st.composite
def line_inputs(draw: st.DrawFn) -> LineInput:
    cap = draw(st.integers(1, 3))
    target = draw(st.integers(1, 4))
    waiting: dict[str, list[str]] = {}
    for requester in draw(st.lists(st.sampled_from(REQUESTERS), unique=True, max_size=3)):
        priorities = draw(st.lists(st.integers(-1, 2), max_size=7))
        jobs = sorted(enumerate(priorities), key=lambda job: (-job[1], job[0]))  # the ledger's
        waiting[requester] = [f"{requester}{n}" for n, _ in jobs]
    servers = []
    for _ in range(draw(st.integers(1, 3))):
        in_flight = {r: draw(st.integers(0, cap)) for r in REQUESTERS}
        foreign = draw(st.integers(0, 3))
        last = draw(st.none() | st.sampled_from(REQUESTERS))
        servers.append(ServerLoad(sum(in_flight.values()) + foreign, in_flight, last))
    return LineInput(waiting, servers, target, cap, draw(st.none() | st.floats(0.5, 60)))


@settings(max_examples=400, deadline=None)
@given(line_inputs())
def test_the_places_predicted_are_the_order_admission_sends_in(inputs: LineInput) -> None:
    places = waiting_line(inputs)
    predicted = sorted(places, key=lambda job: places[job].place)
    sent = sent_by_admission(inputs)
    assert predicted == [job for job, _, _ in sent]
    assert [(places[job].server, places[job].at_once) for job in predicted] == [
        (server, first) for _, server, first in sent
    ]
    ahead = sum(load.queue for load in inputs.servers)
    assert [places[job].place for job in predicted] == list(range(ahead + 1, ahead + len(sent) + 1))


@given(line_inputs())
def test_asking_for_some_jobs_gives_the_same_places_walking_less(inputs: LineInput) -> None:
    whole = waiting_line(inputs)
    for job in list(whole)[::3]:
        part = waiting_line(inputs, wanted=[job])
        assert part == {j: whole[j] for j in part}
        assert job in part
        at_once = sum(1 for p in whole.values() if p.at_once)
        rank = whole[job].place - sum(load.queue for load in inputs.servers)
        assert len(part) <= max(at_once, rank + inputs.queue_target - 1)  # its server's room


def test_the_estimate_is_the_place_over_the_servers_at_the_typical_time() -> None:
    two = [ServerLoad(1, {"ann": 1}), ServerLoad(0)]
    inputs = LineInput({"ann": ["a1", "a2"], "bob": ["b1"]}, two, 1, 1, job_seconds=10.0)
    places = waiting_line(inputs)
    assert {job: (p.place, p.estimate_s, p.server) for job, p in places.items()} == {
        "a1": (2, 10.0, 1),  # ann's cap holds on each server: server 1 is free, her turn first
        "a2": (3, 15.0, 0),  # server 0's prompt finishes first: ann's turn there again
        "b1": (4, 20.0, 1),  # then a1 on server 1
    }
    assert [places[j].at_once for j in ("a1", "a2", "b1")] == [True, False, False]
