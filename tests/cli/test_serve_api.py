"""The API inside `batchline serve`: an address taken by another program, its limits and caps."""

from __future__ import annotations

import argparse
import resource
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli.serve_api import ApiPlan, api_plan, api_serving
from core.api import ApiConfig
from core.api.connections import WANTED_DESCRIPTORS, ConnectionCaps
from core.controller.backpressure import Limits
from core.errors import InputError
from core.ledger import Ledger
from core.ledger.settings import MAX_BACKLOG


@pytest.fixture
def taken() -> Iterator[int]:
    """A loopback port another program listens on."""
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        yield other.getsockname()[1]


@pytest.mark.asyncio
async def test_the_default_address_taken_turns_the_api_off_an_asked_one_stops_serve(
    tmp_path: Path, taken: int, capsys: pytest.CaptureFixture[str]
) -> None:
    with Ledger(tmp_path) as ledger:
        config = ApiConfig("127.0.0.1", taken)
        async with api_serving(ledger, ApiPlan(config, asked=False)) as address:
            assert address is None
        assert capsys.readouterr().err == (
            f"batchline: the API cannot listen on 127.0.0.1:{taken} (Address already in use): "
            "the HTTP API is off (choose another address with --listen)\n"
        )
        with pytest.raises(InputError, match=f"cannot listen on 127.0.0.1:{taken}"):
            async with api_serving(ledger, ApiPlan(config, asked=True)):
                pass


def test_the_limits_come_from_the_settings_unless_given(tmp_path: Path) -> None:
    options = {"no_api": False, "listen": None, "allow_remote": False}
    with Ledger(tmp_path) as ledger:
        MAX_BACKLOG.set(ledger, 50)
        given = argparse.Namespace(**options, max_pending_per_requester=5, max_backlog=None)
        plan = api_plan(given, ledger, servers=2)
        assert plan is not None
        assert (plan.config.limits, plan.config.servers, plan.asked) == (Limits(5, 50), 2, False)
        assert api_plan(argparse.Namespace(no_api=True), ledger, 1) is None
        assert api_plan(argparse.Namespace(), ledger, 1) is None, "`run` serves no API"


def test_the_caps_are_sized_from_the_raised_descriptor_limit(tmp_path: Path) -> None:
    """A serve started at 256 open files (macOS's default) raises it, and sizes its caps from
    the limit it then has."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    options = {"no_api": False, "listen": None, "allow_remote": False}
    given = argparse.Namespace(**options, max_pending_per_requester=None, max_backlog=None)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(256, hard), hard))
        with Ledger(tmp_path) as ledger:
            plan = api_plan(given, ledger, servers=1)
        now = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert plan is not None
    assert now == min(WANTED_DESCRIPTORS, hard)
    assert plan.config.caps == ConnectionCaps.for_descriptors(now)
    assert plan.config.caps.connections <= now // 4
