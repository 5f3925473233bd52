"""Backpressure: a batch past its requester's quota or the backlog's limit is refused whole,
with the place in line and the wait until there is room."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from core.controller.backpressure import UNKNOWN_WAIT_RETRY_S, Limits, check_room
from core.errors import BatchTooLarge, InputError, QueueBusy
from core.ledger import Ledger, PresetContent
from core.ledger.settings import MAX_BACKLOG, MAX_PENDING_PER_REQUESTER
from tests.core.controller.test_line_now import run
from tests.core.ledger.conftest import WORKFLOW, make_jobs


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[Ledger]:
    with Ledger(tmp_path / "home") as opened:
        opened.presets.add("demo", PresetContent("hash-demo", WORKFLOW))
        yield opened


def test_within_the_limits_nothing_is_said(ledger: Ledger) -> None:
    make_jobs(ledger, 3, "alice")
    check_room(ledger, Limits(5, 10), 1, "alice", 2)


def test_past_the_requesters_quota_the_wait_counts_the_jobs_that_must_finish(
    ledger: Ledger,
) -> None:
    ids = make_jobs(ledger, 5, "alice")
    run(ledger, ids[0], 10.0)  # finished: no longer counts, and times the jobs at 10 s
    make_jobs(ledger, 2, "bob")
    with pytest.raises(QueueBusy) as refused:
        check_room(ledger, Limits(5, 100), 1, "alice", 3)
    busy = refused.value
    assert (busy.reason, busy.position) == ("requester_quota", 9), "6 unfinished + 3 new"
    assert busy.estimated_wait_s == 90.0, "the last new job is done after 9 jobs of 10 s"
    assert (busy.room_in_s, busy.retry_after_s) == (20.0, 20), "2 must finish, 10 s each"
    assert str(busy) == (
        "busy: alice has 4 unfinished jobs and may have 5; the 3 new jobs were not queued "
        "(the last would be at position 9); try again in about 20 s"
    )
    check_room(ledger, Limits(5, 100), 1, "bob", 3)  # bob has room


def test_past_the_backlog_two_servers_halve_the_wait(ledger: Ledger) -> None:
    ids = make_jobs(ledger, 1, "alice")
    run(ledger, ids[0], 8.0)
    make_jobs(ledger, 6, "bob")
    with pytest.raises(QueueBusy) as refused:
        check_room(ledger, Limits(100, 8), 2, "alice", 4)
    busy = refused.value
    # Requesters take turns: alice's 4 new jobs and 2 of bob's fill the two servers' rooms.
    assert (busy.reason, busy.position, busy.estimated_wait_s) == ("backlog", 6, 24.0)
    assert busy.room_in_s == 8.0, "2 must finish, 8 s each on two servers"
    assert "the backlog holds 6 unfinished jobs and may hold 8" in str(busy)


def test_without_any_finished_job_the_client_is_told_to_try_again_later(ledger: Ledger) -> None:
    make_jobs(ledger, 2, "alice")
    with pytest.raises(QueueBusy) as refused:
        check_room(ledger, Limits(2, 100), 1, "alice", 1)
    assert refused.value.estimated_wait_s is None
    assert refused.value.retry_after_s == UNKNOWN_WAIT_RETRY_S
    assert str(refused.value).endswith(f"try again in {UNKNOWN_WAIT_RETRY_S} s (no estimate yet)")


def test_a_batch_larger_than_a_limit_would_never_fit(ledger: Ledger) -> None:
    with pytest.raises(BatchTooLarge, match="a batch of 6 jobs is more than the 5 one requester"):
        check_room(ledger, Limits(5, 100), 1, "alice", 6)
    with pytest.raises(BatchTooLarge, match="more than the 4 the backlog may hold"):
        check_room(ledger, Limits(5, 4), 1, "alice", 5)


def test_the_limits_are_settings_and_options_override_them(ledger: Ledger) -> None:
    assert Limits.load(ledger) == Limits()
    MAX_PENDING_PER_REQUESTER.set(ledger, 7)
    MAX_BACKLOG.set(ledger, 70)
    assert Limits.load(ledger) == Limits(7, 70)
    assert Limits.load(ledger).with_overrides(None, 9) == Limits(7, 9)
    with pytest.raises(InputError, match="max-backlog must be at least 1"):
        Limits(7, 0)
