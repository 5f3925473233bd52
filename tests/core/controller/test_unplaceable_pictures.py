"""A picture that cannot be placed is that picture's problem: whatever holds its name, it takes
the next one; a batch folder that is a link fails that batch's jobs; the other jobs never wait."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.batch import BatchSpec, SeedPlan, queue_batch
from core.job_state import JobState, Reason
from core.ledger import Ledger
from simulator import Simulator
from tests.core.controller.conftest import MakeController
from tests.core.helpers import wait_for

pytestmark = pytest.mark.asyncio


def queue_one_batch(ledger: Ledger, count: int, start: int) -> tuple[str, list[str]]:
    batch, jobs = queue_batch(ledger, "noise", BatchSpec(seeds=SeedPlan(count=count, start=start)))
    return batch.id, jobs


def finished(ledger: Ledger, jobs: list[str]) -> bool:
    return all(ledger.job(job).state.is_terminal for job in jobs)


async def test_a_link_a_folder_or_a_dangling_link_at_the_name_is_passed_by(
    ledger: Ledger, simulator: Simulator, make_controller: MakeController, tmp_path: Path
) -> None:
    batch, jobs = queue_one_batch(ledger, 3, start=1)
    folder = tmp_path / "out" / batch
    folder.mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "theirs.png").write_bytes(b"theirs")
    (folder / f"{jobs[0]}_1.png").symlink_to(elsewhere / "theirs.png")
    (folder / f"{jobs[1]}_1.png").mkdir()
    (folder / f"{jobs[2]}_1.png").symlink_to(elsewhere / "nothing.png")
    await make_controller(ledger, simulator)
    await wait_for(lambda: finished(ledger, jobs))
    assert [ledger.job(job).state for job in jobs] == [JobState.succeeded] * 3
    outputs = [ledger.attempts(job)[-1].outputs for job in jobs]
    assert outputs == [[str(folder.resolve() / f"{job}_1-2.png")] for job in jobs]
    assert all(Path(path).is_file() and not Path(path).is_symlink() for (path,) in outputs)
    assert sorted(p.name for p in elsewhere.iterdir()) == ["theirs.png"], "nothing written there"
    assert (elsewhere / "theirs.png").read_bytes() == b"theirs"
    assert list((folder / f"{jobs[1]}_1.png").iterdir()) == []


@pytest.mark.expect_log("core.controller.reconcile")
async def test_a_batch_folder_that_is_a_link_fails_that_batch_only(
    ledger: Ledger, simulator: Simulator, make_controller: MakeController, tmp_path: Path
) -> None:
    linked, linked_jobs = queue_one_batch(ledger, 2, start=1)
    plain, plain_jobs = queue_one_batch(ledger, 3, start=10)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / linked).symlink_to(elsewhere, target_is_directory=True)
    await make_controller(ledger, simulator)
    await wait_for(lambda: finished(ledger, [*linked_jobs, *plain_jobs]))
    assert [ledger.job(job).state for job in plain_jobs] == [JobState.succeeded] * 3
    assert len(list((tmp_path / "out" / plain).iterdir())) == 3
    for job in linked_jobs:
        record = ledger.job(job)
        assert (record.state, record.reason) == (JobState.failed, Reason.output_refused)
        (attempt,) = ledger.attempts(job)
        assert attempt.error is not None
        assert "is a link: refused" in attempt.error.message
        assert attempt.refs, "where its pictures are on the server stays on record"
    assert list(elsewhere.iterdir()) == [], "nothing written through the link"
