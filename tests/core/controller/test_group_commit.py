"""A tick commits what it observed (the answers to its POSTs, what the socket said, its
successes) together: one sync to disk, not one a job; every attempt is still committed before
its POST, and every success before its pictures are fetched."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from core.comfy import ComfyClient, ExecutionStart, new_prompt_id
from core.controller.group_commit import GroupCommit
from core.controller.server_link import ServerLink
from core.errors import ComfyProtocolError, UnknownRecord
from core.job_state import AttemptResult, JobState
from core.ledger import Ledger
from simulator import Simulator
from tests.core.controller.conftest import queue
from tests.core.helpers import FAST, wait_for


def job_transactions(ledger: Ledger) -> list[list[str]]:
    """The statements of each transaction that moves a job on ``ledger``'s connection, from now
    on (filled as they run)."""
    found: list[list[str]] = []
    current: list[str] = []

    def trace(statement: str) -> None:
        nonlocal current
        words = statement.split()
        first = words[0].upper() if words else ""
        if first == "BEGIN":
            current = []
        elif first == "COMMIT":
            if any(s.startswith("UPDATE job ") for s in current):
                found.append(current)
        else:
            current.append(statement)

    ledger.handle.database.connection().set_trace_callback(trace)
    return found


@pytest.mark.asyncio
async def test_a_ticks_answers_and_its_successes_are_committed_together(
    ledger: Ledger, simulator: Simulator, tmp_path: Path
) -> None:
    ids = queue(ledger, 3)
    async with ComfyClient(simulator.url) as client:
        link = ServerLink(ledger, client, FAST, tmp_path / "out", changed=lambda: None)
        sent = job_transactions(ledger)
        await link.tick(ledger.live_attempts(), paused=False)
        assert [ledger.job(i).state for i in ids] == [JobState.queued] * 3
        # Each attempt alone before its POST, then the three answers in one transaction.
        assert len(sent) == 4
        assert all(any(s.startswith("INSERT INTO attempt ") for s in tx) for tx in sent[:3])
        assert sum(s.startswith("UPDATE attempt ") for s in sent[3]) == 3
        live = ledger.live_attempts()
        for attempt in live:
            await wait_for(lambda a=attempt: simulator.state.history.get(a.prompt_id) is not None)
        finished = job_transactions(ledger)
        await link.tick(live, paused=False)
    assert [ledger.job(i).state for i in ids] == [JobState.succeeded] * 3
    # The three successes (where their pictures lie) in one transaction, before the pictures
    # are fetched; the three fetched in one more.
    assert len(finished) == 2
    assert [sum(s.startswith("UPDATE attempt ") for s in tx) for tx in finished] == [3, 3]
    assert all("refs_json" in s for s in finished[0] if s.startswith("UPDATE attempt "))
    assert all("outputs_json" in s for s in finished[1] if s.startswith("UPDATE attempt "))


def test_a_group_is_written_whole_or_not_at_all(ledger: Ledger) -> None:
    (job_id,) = queue(ledger, 1)
    pid = new_prompt_id()
    ledger.submit_attempt(job_id, pid, "http://127.0.0.1:1", "hash")
    group = GroupCommit(ledger)
    group.add(lambda: ledger.observe_queued(pid, 1))
    group.add(lambda: ledger.job("no such job"))
    with pytest.raises(UnknownRecord):
        group.commit()
    assert ledger.attempts(job_id)[0].result == AttemptResult.submitting
    group.commit()  # nothing left to write
    group.add(lambda: ledger.observe_queued(pid, 1))
    group.commit()
    assert ledger.attempts(job_id)[0].result == AttemptResult.queued


@pytest.mark.asyncio
async def test_once_the_server_keeps_our_ids_a_burst_is_written_in_one_transaction(
    ledger: Ledger, simulator: Simulator, tmp_path: Path
) -> None:
    (first,) = queue(ledger, 1)
    async with ComfyClient(simulator.url) as client:
        link = ServerLink(ledger, client, FAST, tmp_path / "out", changed=lambda: None)
        await link.tick([], paused=False)  # sent alone: the server has not kept an id yet
        ids = queue(ledger, 2, start=10)
        await wait_for(lambda: simulator.state.history.get(ledger.attempts(first)[0].prompt_id))
        sent = job_transactions(ledger)
        await link.tick(ledger.live_attempts(), paused=False)
    assert [ledger.job(i).state for i in ids] == [JobState.queued] * 2
    # The two attempts; the first's success; then the two answers and the first's pictures.
    written, succeeded, observed = sent
    assert sum(s.startswith("INSERT INTO attempt ") for s in written) == 2
    assert sum(s.startswith("UPDATE attempt ") for s in succeeded) == 1
    assert sum(s.startswith("UPDATE attempt ") for s in observed) == 3


@pytest.mark.asyncio
async def test_a_start_the_socket_reports_is_written_with_the_ticks_other_writes(
    ledger: Ledger, simulator: Simulator, tmp_path: Path
) -> None:
    (job_id,) = queue(ledger, 1)
    async with ComfyClient(simulator.url) as client:
        link = ServerLink(ledger, client, FAST, tmp_path / "out", changed=lambda: None)
        await link.tick([], paused=False)
        pid = ledger.attempts(job_id)[0].prompt_id
        await wait_for(lambda: simulator.state.history.get(pid))
        link.on_event(ExecutionStart(pid))
        assert ledger.job(job_id).state == JobState.queued, "held back for the tick"
        sent = job_transactions(ledger)
        async with asyncio.timeout(20.0):  # well below the minute: woken to write it
            await link.sleep(60.0)
        await link.tick(ledger.live_attempts(), paused=False)
    observed, fetched = sent  # its start with its success; then its pictures
    assert sum(s.startswith("UPDATE attempt ") for s in observed) == 2  # running, succeeded
    assert sum(s.startswith("UPDATE attempt ") for s in fetched) == 1
    moves = [t.to_state for t in ledger.transitions(job_id)]
    assert moves[-2:] == [JobState.running, JobState.succeeded]


@pytest.mark.asyncio
async def test_a_burst_is_sent_whole_when_one_answer_is_unreadable(
    ledger: Ledger, simulator: Simulator, tmp_path: Path
) -> None:
    queue(ledger, 1)
    async with ComfyClient(simulator.url) as client:
        link = ServerLink(ledger, client, FAST, tmp_path / "out", changed=lambda: None)
        await link.tick([], paused=False)
        ids = queue(ledger, 2, start=10)
        simulator.set_faults(garbage_rate=1.0, routes=["POST /prompt"])
        with pytest.raises(ComfyProtocolError):
            await link.tick(ledger.live_attempts(), paused=False)
    attempts = ledger.attempts_of(ids)
    pids = [tries[-1].prompt_id for tries in attempts.values()]
    assert [tries[-1].result for tries in attempts.values()] == [AttemptResult.submitting] * 2
    # Both were sent although the first answer was unreadable: both run.
    await wait_for(lambda: all(simulator.state.history.get(pid) for pid in pids))
