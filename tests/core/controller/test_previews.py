"""Previews of running jobs: from ComfyUI's binary frames to a file a window can show."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import pytest

from core.batch import BatchSpec, SeedPlan, queue_batch
from core.comfy import PreviewImage
from core.controller.previews import MIN_INTERVAL_S, PreviewFiles, preview_file
from core.job_state import JobState
from core.ledger import PresetContent
from core.presets import workflow_hash
from tests.core.conftest import MakeSimulator
from tests.core.controller.conftest import MakeController
from tests.core.helpers import wait_for
from tests.simulator.sim_helpers import checkpoint

if TYPE_CHECKING:
    from pathlib import Path

    from core.ledger import Ledger


@pytest.mark.asyncio
async def test_a_running_jobs_newest_preview_is_a_file_until_it_finishes(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    workflow = checkpoint(steps=40)
    ledger.presets.add("sampler", PresetContent(workflow_hash(workflow), workflow))
    simulator = await make_simulator(job_seconds=1.0, preview_method="auto")
    spec = BatchSpec(seeds=SeedPlan(count=1))
    _batch, (job,) = queue_batch(ledger, "sampler", spec, seed_inputs=["3.seed"])
    controller = await make_controller(ledger, simulator)
    await wait_for(lambda: controller.status.previews.get(job, 0) >= 2)
    path = preview_file(ledger.folder, job)
    assert path is not None
    assert path.name == f"{job}.jpg"
    assert path.read_bytes().startswith(b"\xff\xd8")
    await wait_for(lambda: ledger.job(job).state == JobState.succeeded)
    await wait_for(lambda: job not in controller.status.previews)
    assert preview_file(ledger.folder, job) is None


def test_previews_are_kept_at_most_four_times_a_second_and_never_too_big(tmp_path: Path) -> None:
    files = PreviewFiles(tmp_path)
    jpeg = PreviewImage("p", "3", "image/jpeg", b"\xff\xd8one")
    assert files.save("job_1", jpeg)
    assert not files.save("job_1", PreviewImage("p", "3", "image/jpeg", b"\xff\xd8two"))
    assert files.save("job_2", PreviewImage(None, None, "image/png", b"\x89PNG"))
    huge = PreviewImage("q", "3", "image/png", bytes(5 * 1024 * 1024))
    assert not files.save("job_3", huge)
    assert files.counts == {"job_1": 1, "job_2": 1}
    assert (tmp_path / "previews" / "job_1.jpg").read_bytes() == b"\xff\xd8one"
    time.sleep(MIN_INTERVAL_S)
    assert files.save("job_1", PreviewImage("p", "3", "image/jpeg", b"\xff\xd8three"))
    assert files.counts == {"job_1": 2, "job_2": 1}
    assert (tmp_path / "previews" / "job_1.jpg").read_bytes() == b"\xff\xd8three"
    files.keep_only({"job_2"})
    assert preview_file(tmp_path, "job_1") is None
    assert preview_file(tmp_path, "job_2") == tmp_path / "previews" / "job_2.png"
