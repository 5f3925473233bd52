"""A server that trickles or floods its answers is named in the status with the route that is
stuck, and the controller goes on serving the other servers (each has its own loop)."""

from __future__ import annotations

import logging
import socket
from types import SimpleNamespace

import httpx
import pytest

from core.controller import Connection, Controller
from core.job_state import JobState
from core.ledger import Ledger
from simulator import Simulator
from tests.core.controller.conftest import MakeController, queue
from tests.core.helpers import wait_for
from tests.core.hostile import GB, HostileServer, huge, trickle

pytestmark = pytest.mark.asyncio


def stuck_status(controller: Controller, url: str, text: str) -> bool:
    server = next(s for s in controller.status.servers if s.server == url)
    return server.connection == Connection.offline and text in server.last_error


@pytest.mark.parametrize(
    ("behaviour", "error", "what"),
    [
        (
            trickle(0.05),
            "GET /queue: no complete answer within 1 s (the server is stuck)",
            "is unreachable",
        ),
        (
            huge(GB),
            "GET /queue: answer exceeds the limit of 16 MiB, not read further",
            "answered unexpectedly",
        ),
    ],
    ids=["trickle", "1 GB"],
)
@pytest.mark.expect_log("core.controller.controller")
async def test_a_stuck_server_is_named_and_the_other_one_does_the_work(
    ledger: Ledger,
    simulator: Simulator,
    hostile: HostileServer,
    make_controller: MakeController,
    caplog: pytest.LogCaptureFixture,
    behaviour: object,
    error: str,
    what: str,
) -> None:
    hostile.behaviours["GET /queue"] = behaviour  # type: ignore[assignment]
    ids = queue(ledger, 4)
    controller = await make_controller(
        ledger,
        [hostile, simulator],  # type: ignore[list-item]
        client_timeout=httpx.Timeout(1.0),
    )
    await wait_for(lambda: all(ledger.job(j).state is JobState.succeeded for j in ids), 30)
    assert {ledger.attempts(j)[-1].server for j in ids} == {simulator.url}
    await wait_for(lambda: stuck_status(controller, hostile.url, error), 10)
    await wait_for(lambda: hostile.requests["GET /queue"] >= 2, 10)  # the stuck one is retried
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings.count(f"ComfyUI at {hostile.url} {what}: {error}") == 1  # once, not per try


@pytest.mark.expect_log("core.controller.controller")
async def test_the_status_says_first_in_plain_words_why_a_server_is_offline(
    ledger: Ledger, make_controller: MakeController
) -> None:
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        nowhere = SimpleNamespace(url=f"http://127.0.0.1:{sock.getsockname()[1]}")
    controller = await make_controller(ledger, nowhere)  # type: ignore[arg-type]
    await wait_for(lambda: controller.status.connection == Connection.offline, 10)
    error = controller.status.last_error
    assert error.startswith("nothing listens on that port (is ComfyUI started?): GET /queue: ")
    assert "cannot connect" in error, "the technical error follows"
