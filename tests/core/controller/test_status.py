"""What the controller tells its observers: one observer that raises neither stops the controller
nor the others."""

from __future__ import annotations

import logging

import pytest

from core.controller import Controller
from core.job_state import JobState
from core.ledger import Ledger
from simulator import Simulator
from tests.core.controller.conftest import MakeController, queue
from tests.core.controller.test_controller import states
from tests.core.helpers import wait_for

pytestmark = pytest.mark.asyncio


@pytest.mark.expect_log("core.controller.status", "ERROR")
async def test_an_observer_that_raises_neither_stops_the_controller_nor_the_others(
    ledger: Ledger,
    simulator: Simulator,
    make_controller: MakeController,
    caplog: pytest.LogCaptureFixture,
) -> None:
    seen: list[Controller] = []
    controller = await make_controller(ledger, simulator)

    def broken(_status: object) -> None:
        raise RuntimeError("observer bug")

    controller.add_status_listener(broken)
    controller.add_status_listener(lambda _status: seen.append(controller))
    ids = queue(ledger, 2)
    controller.wake()
    await wait_for(lambda: states(ledger, ids) == [JobState.succeeded] * 2)
    await wait_for(lambda: controller.status.done_per_minute > 0)
    assert seen, "the observer after the broken one is still told"
    failures = [r for r in caplog.records if r.getMessage() == "status listener failed"]
    assert failures
    assert all(r.levelno == logging.ERROR and r.exc_info for r in failures)
