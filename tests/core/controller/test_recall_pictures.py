"""Recall from a picture Batchline fetched: the preset it came from and the job's values."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.batch import BatchSpec, SeedPlan, queue_batch
from core.batch.recall import recall_job, recall_png
from core.job_state import JobState
from core.ledger import Ledger
from simulator import Simulator
from tests.core.controller.conftest import MakeController
from tests.core.helpers import wait_for

pytestmark = pytest.mark.asyncio


async def test_a_fetched_picture_recalls_its_job_values_and_preset(
    ledger: Ledger, simulator: Simulator, make_controller: MakeController
) -> None:
    spec = BatchSpec(seeds=SeedPlan(count=2, start=900), overrides={"2.strength": 0.3})
    _, ids = queue_batch(ledger, "noise", spec)
    await make_controller(ledger, simulator)
    await wait_for(lambda: all(ledger.job(j).state == JobState.succeeded for j in ids))
    (picture,) = (Path(p) for p in ledger.attempts(ids[1])[-1].outputs)
    from_picture = recall_png(ledger, picture.read_bytes(), picture, current="noise")
    assert from_picture.preset == "noise"
    assert from_picture.values["2.seed"] == 901
    # The batch folder the prompt saved under is not part of the recalled values.
    assert from_picture.values == recall_job(ledger, ids[1]).values
