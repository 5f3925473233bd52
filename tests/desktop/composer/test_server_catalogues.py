"""Each server's node catalogue, fetched in the background: a fetch still under way when its
owner is deleted (the window closed) is given up, never left to signal from a deleted object."""

from __future__ import annotations

import asyncio

import pytest
from aiohttp import web

from desktop.composer.server_catalogues import ServerCatalogues
from tests.core.hostile import HostileServer, HostileThread


@pytest.fixture
def hostile():
    runner = HostileThread(HostileServer())
    runner.start()
    yield runner.server
    runner.stop()


def test_a_fetch_under_way_when_its_owner_is_deleted_is_given_up(qloop, hostile) -> None:
    asked = asyncio.Event()
    loop = asyncio.get_event_loop()

    async def slow(server, request, route):
        loop.call_soon_threadsafe(asked.set)
        await asyncio.sleep(0.5)  # the window is gone by then
        return web.json_response({})

    hostile.behaviours["GET /object_info"] = slow

    async def scenario() -> asyncio.Task[None]:
        catalogues = ServerCatalogues()
        catalogues.want([hostile.url])
        (task,) = catalogues._tasks.values()
        await asyncio.wait_for(asked.wait(), 20)
        catalogues.deleteLater()  # as its window's deletion takes it along
        await asyncio.wait({task}, timeout=20)
        return task

    task = qloop.run_until_complete(scenario())
    assert task.cancelled(), "given up, not finished signalling a deleted object"
