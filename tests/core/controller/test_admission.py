"""Admission, sans-IO: caps, round-robin, priority order, pause, keeping the GPU fed."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from core.controller.admission import AdmissionInput, admit, queue_target

BASE = AdmissionInput(server_count=0, in_flight={}, waiting={}, global_cap=3, per_requester_cap=3)


def chosen(inputs: AdmissionInput) -> list[str]:
    return [candidate.job_id for candidate in admit(inputs)]


def test_fills_up_to_the_global_cap_counting_other_clients() -> None:
    inputs = replace(BASE, waiting={"a": ["a1", "a2", "a3", "a4"]}, server_count=1)
    assert chosen(inputs) == ["a1", "a2"]


def test_nothing_when_the_server_is_full_or_paused() -> None:
    waiting = {"a": ["a1"]}
    assert chosen(replace(BASE, waiting=waiting, server_count=3)) == []
    assert chosen(replace(BASE, waiting=waiting, paused=True)) == []


def test_per_requester_cap_counts_jobs_already_in_flight() -> None:
    inputs = replace(
        BASE,
        global_cap=8,
        per_requester_cap=2,
        in_flight={"a": 1},
        waiting={"a": ["a1", "a2"], "b": ["b1", "b2", "b3"]},
    )
    assert chosen(inputs) == ["a1", "b1", "b2"]


def test_round_robin_starts_after_the_requester_served_last() -> None:
    waiting = {"a": ["a1", "a2"], "b": ["b1", "b2"], "c": ["c1"]}
    assert chosen(replace(BASE, waiting=waiting, last_served="a")) == ["b1", "c1", "a1"]
    assert chosen(replace(BASE, waiting=waiting, last_served="c")) == ["a1", "b1", "c1"]


def test_each_requester_line_keeps_its_own_order() -> None:
    inputs = replace(BASE, global_cap=4, waiting={"a": ["high", "low"], "b": ["b1"]})
    assert chosen(inputs) == ["high", "b1", "low"]


def test_the_global_cap_is_a_ceiling_however_short_the_jobs() -> None:
    for cap in (1, 3):
        assert queue_target(replace(BASE, global_cap=cap, job_seconds=0.01)) == cap
    inputs = replace(BASE, global_cap=1, per_requester_cap=8, job_seconds=0.01)
    assert chosen(replace(inputs, waiting={"a": ["a1", "a2", "a3"]})) == ["a1"]


def test_the_deep_queue_keeps_more_prompts_waiting_up_to_its_ceiling() -> None:
    deep = replace(BASE, deep_queue=True)
    assert queue_target(deep) == 3
    assert queue_target(replace(deep, job_seconds=10.0)) == 3
    assert queue_target(replace(deep, job_seconds=0.5, poll_interval=1.0)) == 5
    assert queue_target(replace(deep, job_seconds=0.01, max_queue_depth=8)) == 8
    assert queue_target(replace(deep, job_seconds=0.01, max_queue_depth=2)) == 3, "never below"


@given(
    server=st.integers(0, 10),
    cap=st.integers(1, 6),
    per=st.integers(1, 4),
    lines=st.dictionaries(st.sampled_from("abcd"), st.integers(0, 6), max_size=4),
    busy=st.dictionaries(st.sampled_from("abcd"), st.integers(0, 4), max_size=4),
    seconds=st.none() | st.floats(0.001, 100.0),
    deep=st.booleans(),
    fills=st.booleans(),
)
def test_never_exceeds_any_cap(
    server: int,
    cap: int,
    per: int,
    lines: dict[str, int],
    busy: dict[str, int],
    seconds: float | None,
    deep: bool,
    fills: bool,
) -> None:
    waiting = {r: [f"{r}{i}" for i in range(n)] for r, n in lines.items()}
    inputs = replace(
        BASE,
        server_count=server,
        global_cap=cap,
        per_requester_cap=per,
        waiting=waiting,
        in_flight=busy,
        job_seconds=seconds,
        deep_queue=deep,
        lone_requester_fills=fills,
    )
    result = admit(inputs)
    ceiling = max(cap, inputs.max_queue_depth) if deep else cap
    assert len(result) <= max(0, ceiling - server)
    alone = sum(1 for n in lines.values() if n) <= 1
    mine_most = max(per, ceiling) if fills and alone else per
    for requester in waiting:
        mine = [c for c in result if c.requester == requester]
        assert len(mine) + busy.get(requester, 0) <= max(mine_most, busy.get(requester, 0))
        assert [c.job_id for c in mine] == waiting[requester][: len(mine)]
    assert len({c.job_id for c in result}) == len(result)


def test_a_lone_requester_fills_the_deep_queue_when_its_cap_adapts() -> None:
    short = replace(BASE, deep_queue=True, job_seconds=0.09, waiting={"a": list("abcdefghij")})
    assert queue_target(short) == 8
    assert len(chosen(short)) == 3, "the per-requester cap holds unless it adapts"
    assert chosen(replace(short, lone_requester_fills=True)) == list("abcdefgh")
    long = replace(short, job_seconds=5.0, lone_requester_fills=True)
    assert chosen(long) == list("abc"), "long jobs keep the shallow queue"


def test_with_others_waiting_each_requester_is_held_to_its_cap() -> None:
    fills = replace(BASE, deep_queue=True, lone_requester_fills=True, job_seconds=0.09)
    both = replace(fills, waiting={"a": ["a1", "a2", "a3", "a4"], "b": ["b1", "b2", "b3", "b4"]})
    assert chosen(both) == ["a1", "b1", "a2", "b2", "a3", "b3"]
    # ``a`` filled the queue alone; ``b`` arrives: ``b`` takes the room until it is at its cap.
    deep_a = replace(both, server_count=5, in_flight={"a": 5})
    assert chosen(deep_a) == ["b1", "b2", "b3"]
