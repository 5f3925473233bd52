"""Tests for simulator.http_layer: every route under / and /api, and the token check."""

from __future__ import annotations

import base64

import aiohttp
import pytest

from simulator import Simulator
from simulator.http_layer import token_accepted
from tests.simulator.sim_helpers import get


@pytest.mark.asyncio
async def test_every_route_also_answers_under_api(simulator: Simulator) -> None:
    async with aiohttp.ClientSession() as session:
        for path in ("/prompt", "/queue", "/history", "/system_stats", "/features", "/embeddings"):
            assert (await get(session, simulator.url + path)) == (
                await get(session, simulator.url + "/api" + path)
            )
        _, info = await get(session, simulator.url + "/api/object_info/EmptyImage")
    assert list(info) == ["EmptyImage"]


def test_a_token_is_accepted_as_bearer_or_as_the_basic_password() -> None:
    basic = base64.b64encode(b"anyone:s3cret").decode()
    assert token_accepted("Bearer s3cret", "s3cret")
    assert token_accepted(f"Basic {basic}", "s3cret")
    assert not token_accepted("Bearer wrong", "s3cret")
    assert not token_accepted("Basic not-base64!", "s3cret")
    assert not token_accepted("Token s3cret", "s3cret")
