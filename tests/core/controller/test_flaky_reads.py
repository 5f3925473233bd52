"""A request about one prompt that fails does not hold up the others, nor take the server down."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from core.controller.status import Connection
from core.job_state import JobState
from core.ledger import Ledger
from simulator import Simulator
from tests.core.controller.conftest import MakeController, queue
from tests.core.helpers import wait_for

pytestmark = pytest.mark.asyncio
MakeSimulator = Callable[..., object]


async def test_one_unreadable_history_does_not_stop_the_others(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    # No WebSocket: history is the only way to learn how a prompt ended.
    no_socket = {"error_rate": 1.0, "routes": ["GET /ws"]}
    simulator: Simulator = await make_simulator(job_seconds=0.2, faults=no_socket)  # type: ignore[misc]
    first, *others = queue(ledger, 3)
    controller = await make_controller(ledger, simulator)
    await wait_for(lambda: ledger.attempts(first) != [])
    (attempt,) = ledger.attempts(first)
    # Every read of the first job's history fails from now on: a flaky proxy, say.
    simulator.set_faults(error_rate=1.0, routes=[f"GET /history/{attempt.prompt_id}", "GET /ws"])

    await wait_for(lambda: all(ledger.job(j).state == JobState.succeeded for j in others), 20)
    assert ledger.job(first).state.is_active  # finished, but not readable yet
    # Not taken offline (only its WebSocket is, here: "reconnecting").
    assert controller.status.connection == Connection.reconnecting
    assert "HTTP 500" in controller.status.last_error

    simulator.set_faults(error_rate=0.0)
    await wait_for(lambda: ledger.job(first).state == JobState.succeeded, 10)
    await wait_for(lambda: controller.status.last_error == "", 5)
