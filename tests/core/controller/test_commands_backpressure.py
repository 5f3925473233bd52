"""The window's Queue (the controller's command) obeys the backpressure limits: a batch past
its requester's quota is refused whole, with the same message as `batchline queue`."""

from __future__ import annotations

import pytest

from core.batch import BatchSpec, SeedPlan
from core.errors import QueueBusy
from core.ledger import Ledger
from core.ledger.settings import MAX_PENDING_PER_REQUESTER, PAUSED
from core.simulator import Simulator
from tests.core.controller.conftest import MakeController

pytestmark = pytest.mark.asyncio


async def test_a_batch_past_the_quota_is_refused_before_anything_is_queued(
    ledger: Ledger, simulator: Simulator, make_controller: MakeController
) -> None:
    MAX_PENDING_PER_REQUESTER.set(ledger, 3)
    PAUSED.set(ledger, True)  # the jobs stay unfinished
    controller = await make_controller(ledger, simulator)
    spec = BatchSpec(seeds=SeedPlan(count=2), requester="ann")
    controller.queue_batch("noise", spec)
    with pytest.raises(QueueBusy) as refused:
        controller.queue_batch("noise", spec)
    assert str(refused.value) == (
        "busy: ann has 2 unfinished jobs and may have 3; the 2 new jobs were not queued (the "
        "last would be at position 4); try again in 10 s (no estimate yet)"
    )
    assert len(ledger.jobs()) == 2
