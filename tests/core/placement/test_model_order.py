"""Model-aware order: loaded models first, within the bound, only where a job can run."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from core.placement.model_inputs import ModelInput
from core.placement.model_order import (
    DEFAULT_MAX_PASSED,
    Candidate,
    Choice,
    OrderBound,
    ServerSlots,
    Why,
    candidate,
    choice_text,
    next_choice,
    next_for,
    plan,
)
from core.placement.needs import job_needs
from core.placement.placement import place
from core.placement.server_offer import ServerOffer, offer_from_object_info

A, B, C = frozenset({"a.safetensors"}), frozenset({"b.safetensors"}), frozenset({"c.safetensors"})
BOTH = frozenset({"gpu-1", "gpu-2"})
CKPT = ModelInput("CheckpointLoaderSimple", "ckpt_name")
NO_BOUND = OrderBound(max_passed=10**9, max_wait=float("inf"))


def jobs(*models: frozenset[str], servers: frozenset[str] = BOTH) -> list[Candidate]:
    return [Candidate(str(i), model, servers) for i, model in enumerate(models)]


def run_all(
    candidates: list[Candidate], servers: list[ServerSlots], bound: OrderBound
) -> list[Choice]:
    """Send every job, one free slot at a time: each job sent finishes before the next goes."""
    sent: list[Choice] = []
    pending, slots = list(candidates), list(servers)
    while pending:
        choice = next_choice(pending, slots, bound)
        assert choice is not None
        sent.append(choice)
        pending = [
            replace(j, passed=j.passed + (j.job_id in choice.passed))
            for j in pending
            if j.job_id != choice.job_id
        ]
        slots = [replace(s, loaded=choice.model) if s.name == choice.server else s for s in slots]
    return sent


def switches(choices: list[Choice], loaded: dict[str, frozenset[str]]) -> int:
    count = 0
    for choice in choices:
        count += loaded.get(choice.server) != choice.model
        loaded[choice.server] = choice.model
    return count


def test_a_grid_in_checkpoint_order_switches_once() -> None:
    grid = jobs(*[A] * 20, *[B] * 20, servers=frozenset({"gpu-1"}))
    sent = run_all(grid, [ServerSlots("gpu-1", A)], OrderBound())
    assert [c.job_id for c in sent] == [str(i) for i in range(40)]
    assert switches(sent, {"gpu-1": A}) == 1


def test_alternating_checkpoints_are_grouped_within_the_bound() -> None:
    alternating = jobs(*[A, B] * 20, servers=frozenset({"gpu-1"}))
    grouped = run_all(alternating, [ServerSlots("gpu-1", A)], NO_BOUND)
    assert switches(grouped, {"gpu-1": A}) == 1
    bounded = run_all(alternating, [ServerSlots("gpu-1", A)], OrderBound())
    # Admission's own order switches 39 times; the bound allows a run of about 8 per model.
    assert switches(bounded, {"gpu-1": A}) <= 40 // DEFAULT_MAX_PASSED
    whys = {c.why for c in bounded}
    assert Why.past_bound in whys
    assert whys <= {Why.loaded_model, Why.past_bound, Why.next_in_line}


def test_each_server_takes_the_jobs_of_its_loaded_model() -> None:
    servers = [ServerSlots("gpu-1", A), ServerSlots("gpu-2", B)]
    sent = plan(jobs(B, A, B, A), [replace(s, free=2) for s in servers])
    assert {(c.job_id, c.server) for c in sent} == {
        ("0", "gpu-2"),
        ("1", "gpu-1"),
        ("2", "gpu-2"),
        ("3", "gpu-1"),
    }
    assert all(c.why is Why.loaded_model for c in sent)
    assert choice_text(sent[0]) == "gpu-2: its loaded model"


def test_a_free_server_leaves_a_busy_servers_model_to_it_but_does_not_idle() -> None:
    busy, free = ServerSlots("gpu-1", A, free=0), ServerSlots("gpu-2", B)
    first = next_choice(jobs(A, C), [busy, free])
    assert first is not None
    assert (first.job_id, first.server, first.why) == ("1", "gpu-2", Why.next_in_line)
    assert first.passed == ("0",)
    only = next_choice(jobs(A), [busy, free])
    assert only is not None
    assert (only.job_id, only.server) == ("0", "gpu-2")
    assert choice_text(only) == "gpu-2: next in line"


def test_a_fresh_model_is_taken_among_the_jobs_fewest_servers_can_run_first() -> None:
    """The mixed batch's best split: gpu-2 (which alone has C) takes its C jobs before the B
    ones gpu-1 could take too, so that gpu-1, done with its A jobs, takes the B ones rather
    than idle while gpu-2 runs every C job last."""
    shared = jobs(B, B, servers=BOTH)
    own = [Candidate(f"c{i}", C, frozenset({"gpu-2"})) for i in range(2)]
    choice = next_for("gpu-2", [*shared, *own], [ServerSlots("gpu-1", A), ServerSlots("gpu-2")])
    assert choice is not None
    assert (choice.job_id, choice.server) == ("c0", "gpu-2")
    assert choice.passed == ("0", "1")  # the B jobs it went ahead of count towards the bound


def test_both_servers_stay_busy_to_the_end_of_a_mixed_batch() -> None:
    """A (gpu-1 only), B (both) and C (gpu-2 only), ten each, one job at a time per server:
    the B jobs are shared, so each server runs about half the batch."""
    candidates = [
        *[Candidate(f"a{i}", A, frozenset({"gpu-1"})) for i in range(10)],
        *[Candidate(f"b{i}", B, BOTH) for i in range(10)],
        *[Candidate(f"c{i}", C, frozenset({"gpu-2"})) for i in range(10)],
    ]
    slots = {"gpu-1": ServerSlots("gpu-1"), "gpu-2": ServerSlots("gpu-2")}
    runs = {"gpu-1": 0, "gpu-2": 0}
    asking = set(runs)
    while candidates and asking:  # the server with less done asks next: both equally fast
        name = min(asking, key=lambda s: (runs[s], s))
        choice = next_for(name, candidates, list(slots.values()), NO_BOUND)
        if choice is None:
            asking.discard(name)  # nothing it can run is left
            continue
        runs[name] += 1
        slots[name] = replace(slots[name], loaded=choice.model)
        candidates = [c for c in candidates if c.job_id != choice.job_id]
    assert not candidates
    assert runs == {"gpu-1": 15, "gpu-2": 15}


def test_the_only_server_with_a_model_is_said() -> None:
    choice = next_choice(
        jobs(B, servers=frozenset({"gpu-2"})), [ServerSlots("gpu-1"), ServerSlots("gpu-2", A)]
    )
    assert choice is not None
    assert (choice.server, choice.why) == ("gpu-2", Why.only_server)
    assert choice_text(choice) == "gpu-2: the only server with b.safetensors"


def test_a_job_past_the_bound_goes_first_and_says_so() -> None:
    waiting = [Candidate("0", A, BOTH), Candidate("1", B, BOTH, waited=120.0)]
    choice = next_choice(waiting, [ServerSlots("gpu-1", A)])
    assert choice is not None
    assert (choice.job_id, choice.why, choice.passed) == ("1", Why.past_bound, ("0",))
    assert choice_text(choice) == "gpu-1: waited past the bound"


def test_nothing_is_sent_without_a_free_server_that_can_run_it() -> None:
    assert next_choice(jobs(A, servers=frozenset({"gpu-2"})), [ServerSlots("gpu-1", A)]) is None
    assert next_choice(jobs(A), [ServerSlots("gpu-1", A, free=0)]) is None
    assert next_choice([], [ServerSlots("gpu-1")]) is None
    assert plan(jobs(A, A, A), [ServerSlots("gpu-1", free=2)])[1].why is Why.loaded_model


MODELS = st.sampled_from([A, B, C, frozenset(), A | B])
SERVER_NAMES = ["gpu-1", "gpu-2", "gpu-3"]
candidates = st.lists(
    st.tuples(MODELS, st.sets(st.sampled_from(SERVER_NAMES), min_size=1)), max_size=25
).map(lambda rows: [Candidate(str(i), m, frozenset(s)) for i, (m, s) in enumerate(rows)])
slots = st.lists(MODELS, min_size=3, max_size=3).map(
    lambda loaded: [ServerSlots(name, m) for name, m in zip(SERVER_NAMES, loaded, strict=True)]
)


@given(candidates, slots, st.integers(0, 6))
def test_no_job_is_passed_over_more_than_the_bound_and_each_runs_where_it_can(
    pending: list[Candidate], servers: list[ServerSlots], max_passed: int
) -> None:
    bound = OrderBound(max_passed=max_passed, max_wait=float("inf"))
    passed = dict.fromkeys((j.job_id for j in pending), 0)
    by_id = {j.job_id: j for j in pending}
    sent = run_all(pending, servers, bound)
    assert sorted(c.job_id for c in sent) == sorted(by_id)
    for choice in sent:
        assert choice.server in by_id[choice.job_id].servers
        assert choice.model == by_id[choice.job_id].model
        for job_id in choice.passed:
            passed[job_id] += 1
            assert choice.server in by_id[job_id].servers
    assert max(passed.values(), default=0) <= max_passed


@given(candidates, slots, st.lists(st.integers(0, 2), min_size=3, max_size=3))
def test_with_no_bound_hit_a_job_of_a_loaded_model_goes_first(
    pending: list[Candidate], servers: list[ServerSlots], free: list[int]
) -> None:
    servers = [replace(s, free=n) for s, n in zip(servers, free, strict=True)]
    choice = next_choice(pending, servers, NO_BOUND)
    matches = [
        (j.job_id, s.name)
        for j in pending
        for s in servers
        if s.free and s.name in j.servers and j.model and j.model <= s.loaded
    ]
    if matches:
        assert choice is not None
        assert (choice.job_id, choice.server) == matches[0]
        assert choice.why is Why.loaded_model
    elif choice is not None:
        assert choice.why in {Why.next_in_line, Why.only_server}


@given(
    candidates,
    slots,
    st.lists(st.floats(0, 300), min_size=25, max_size=25),
)
def test_a_job_waiting_past_the_time_bound_goes_before_any_not_past_it(
    pending: list[Candidate], servers: list[ServerSlots], waits: list[float]
) -> None:
    pending = [replace(j, waited=w) for j, w in zip(pending, waits, strict=False)]
    bound = OrderBound(max_passed=10**9, max_wait=120.0)
    choice = next_choice(pending, servers, bound)
    assert choice is not None or not pending
    overdue = [j.job_id for j in pending if j.waited >= 120.0]
    if overdue:
        assert choice is not None
        assert (choice.job_id, choice.why) == (overdue[0], Why.past_bound)


def test_a_mixed_batch_over_two_model_sets_lands_where_its_models_are() -> None:
    """Placement and order together: gpu-1 has only base.safetensors, gpu-2 both checkpoints."""

    def loader(name: str) -> dict[str, Any]:
        return {"1": {"class_type": "CheckpointLoaderSimple", "inputs": {"ckpt_name": name}}}

    def offer(*names: str) -> ServerOffer:
        return offer_from_object_info(
            {"CheckpointLoaderSimple": {"input": {"required": {"ckpt_name": [list(names)]}}}}
        )

    offers = {
        "gpu-1": offer("base.safetensors"),
        "gpu-2": offer("base.safetensors", "xl.safetensors"),
    }
    batch = [job_needs(loader(name)) for name in ["base.safetensors", "xl.safetensors"] * 6]
    pending = [
        candidate(str(i), needs, place(needs, offers, connected=set(offers)))
        for i, needs in enumerate(batch)
    ]
    sent = run_all(pending, [ServerSlots("gpu-1"), ServerSlots("gpu-2")], OrderBound())
    assert sorted(c.job_id for c in sent) == sorted(j.job_id for j in pending)
    for choice in sent:
        (name,) = choice.model
        assert name in (offers[choice.server].files_of(CKPT) or ())
    xl = [c for c in sent if c.model == {"xl.safetensors"}]
    assert {c.server for c in xl} == {"gpu-2"}
    assert choice_text(xl[0]) == "gpu-2: the only server with xl.safetensors"


def test_a_server_asking_for_itself_gets_a_job_it_can_run_and_leaves_others_theirs() -> None:
    servers = [ServerSlots("gpu-1", A), ServerSlots("gpu-2", B)]
    pending = [*jobs(A, B), Candidate("2", C, frozenset({"gpu-1"}))]
    mine = next_for("gpu-2", pending, servers)
    assert mine is not None
    assert (mine.job_id, mine.server, mine.why) == ("1", "gpu-2", Why.loaded_model)
    other = next_for("gpu-2", [pending[0], pending[2]], servers)
    assert other is not None
    assert (other.job_id, other.server) == ("0", "gpu-2")  # no job of its own: it does not idle
    assert next_for("gpu-2", [pending[2]], servers) is None
    assert next_for("gpu-9", pending, servers) is None
