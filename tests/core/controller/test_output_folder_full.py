"""A full output folder (a real small disk filled up): downloads wait, nothing is lost or
failed, nothing is blamed on ComfyUI, and work resumes once there is room."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from core.controller import Connection
from core.job_state import AttemptResult, JobState
from core.ledger import Ledger
from simulator import Simulator
from tests.core.controller.conftest import MakeController, queue
from tests.core.disks import fill, small_disk
from tests.core.helpers import wait_for

pytestmark = pytest.mark.asyncio


async def test_a_full_output_folder_waits_for_room_then_downloads(
    tmp_path: Path,
    ledger: Ledger,
    simulator: Simulator,
    make_controller: MakeController,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, "core.controller")
    with small_disk(tmp_path / "out", "256k") as out:
        filler = fill(out)
        ids = queue(ledger, 2)
        controller = await make_controller(ledger, simulator)
        await wait_for(lambda: controller.status.output_full == str(out))
        full = controller.status
        assert f"the output folder {out} is full" in full.local_error
        assert "pictures wait on the server until there is room" in full.local_error
        assert full.last_error == "", "not ComfyUI's fault"
        assert full.connection is not Connection.offline
        assert all(ledger.job(job_id).state.is_active for job_id in ids)
        assert not any(
            a.result == AttemptResult.failed for job_id in ids for a in ledger.attempts(job_id)
        )
        assert not list((out).rglob("*.png")), "nothing half written"
        full_logs = [r for r in caplog.records if "is full" in r.getMessage()]
        assert len(full_logs) == 1, "said once"
        assert full_logs[0].exc_info is None, "an expected condition: no traceback"

        filler.unlink()  # room again: the pictures come down without a restart
        await wait_for(lambda: all(ledger.job(job_id).state.is_terminal for job_id in ids))
        assert [ledger.job(job_id).state for job_id in ids] == [JobState.succeeded] * 2
        for job_id in ids:
            (attempt,) = ledger.attempts(job_id)
            assert attempt.outputs
            assert all(Path(p).is_file() for p in attempt.outputs)
            assert all(Path(p).is_relative_to(out) for p in attempt.outputs)
        await wait_for(lambda: controller.status.output_full == "")
        assert controller.status.local_error == ""


async def test_nothing_more_is_sent_once_the_output_folder_is_found_full(
    tmp_path: Path, ledger: Ledger, simulator: Simulator, make_controller: MakeController
) -> None:
    with small_disk(tmp_path / "out", "256k") as out:
        filler = fill(out)
        ids = queue(ledger, 12)
        controller = await make_controller(ledger, simulator)
        await wait_for(lambda: controller.status.output_full == str(out))
        await asyncio.sleep(1.0)  # the tick is tried again and again meanwhile
        sent = [job_id for job_id in ids if ledger.attempts(job_id)]
        assert len(sent) <= 6, "two fills of the queue before the folder was found full, no more"

        filler.unlink()
        await wait_for(lambda: all(ledger.job(job_id).state.is_terminal for job_id in ids))
        assert {ledger.job(job_id).state for job_id in ids} == {JobState.succeeded}
