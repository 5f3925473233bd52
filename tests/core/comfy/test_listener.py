"""The WebSocket listener against the simulator: event order, filtering, reconnects, auth."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from core.comfy import (
    Backoff,
    BearerAuth,
    ComfyClient,
    Connected,
    Disconnected,
    Event,
    Executed,
    Executing,
    ExecutionCached,
    ExecutionError,
    ExecutionStart,
    ExecutionSuccess,
    Listener,
    Progress,
    Reconnected,
    Status,
    new_prompt_id,
)
from core.errors import ComfyAuthError
from core.simulator import Simulator

Connect = Callable[..., ComfyClient]
MakeSimulator = Callable[..., Awaitable[Simulator]]
Workflow = Callable[..., dict[str, Any]]


def fast() -> Backoff:
    return Backoff(initial=0.02, cap=0.2)


async def collect_until(
    listener: Listener, stop: Callable[[Event], bool], limit: float = 10
) -> list[Event]:
    """Events up to and including the first one ``stop`` accepts."""
    events: list[Event] = []
    async with asyncio.timeout(limit):
        async for event in listener:
            events.append(event)
            if stop(event):
                break
    return events


def done(prompt_id: str) -> Callable[[Event], bool]:
    return lambda event: event == Executing(prompt_id, None)


@pytest.mark.asyncio
async def test_event_order_for_one_prompt(
    simulator: Simulator, connect: Connect, make_workflow: Workflow
) -> None:
    client = connect(simulator.url)
    prompt_id = new_prompt_id()
    async with client.listener(backoff=fast()) as listener:
        assert await anext(listener) == Connected(client.client_id)
        await client.submit(make_workflow(5), prompt_id)
        events = await collect_until(listener, done(prompt_id))
    lifecycle = [e for e in events if not isinstance(e, Status | Progress)]
    kinds = [type(e) for e in lifecycle]
    assert kinds[:2] == [ExecutionStart, ExecutionCached]
    assert kinds[-2:] == [ExecutionSuccess, Executing]
    assert Executed in kinds
    assert kinds.index(Executed) < kinds.index(ExecutionSuccess)
    nodes = [e.node for e in lifecycle if isinstance(e, Executing)]
    assert nodes == ["1", "2", None]
    executed = next(e for e in lifecycle if isinstance(e, Executed))
    assert executed.images[0].filename.endswith(".png")
    entry = await client.history(prompt_id)  # written before executing(None)
    assert entry is not None
    assert entry.images == executed.images


@pytest.mark.asyncio
async def test_execution_error_carries_the_classified_failure(
    simulator: Simulator, connect: Connect, make_workflow: Workflow
) -> None:
    simulator.fail_next(1, kind="oom")
    simulator.fail_next(1, kind="error")
    client = connect(simulator.url)
    first, second = new_prompt_id(), new_prompt_id()
    async with client.listener(backoff=fast()) as listener:
        await anext(listener)
        await client.submit(make_workflow(1), first)
        await client.submit(make_workflow(2), second)
        events = await collect_until(listener, done(second))
    errors = {e.prompt_id: e.failure.kind for e in events if isinstance(e, ExecutionError)}
    assert errors == {first: "oom", second: "other"}


@pytest.mark.asyncio
async def test_reconnect_is_announced_and_events_resume(
    simulator: Simulator, connect: Connect, make_workflow: Workflow
) -> None:
    client = connect(simulator.url)
    async with client.listener(backoff=fast()) as listener:
        await anext(listener)
        await collect_until(listener, lambda e: isinstance(e, Status))  # the greeting
        await simulator.drop_websockets()
        events = await collect_until(listener, lambda e: isinstance(e, Reconnected))
        assert isinstance(events[0], Disconnected)
        assert events[-1] == Reconnected(client.client_id, attempt=1)
        prompt_id = new_prompt_id()
        await client.submit(make_workflow(9), prompt_id)
        after = await collect_until(listener, done(prompt_id))
    assert any(isinstance(e, ExecutionSuccess) for e in after)
    assert simulator.stats()["websockets"] <= 1


@pytest.mark.asyncio
async def test_restart_mid_job_is_announced(
    make_simulator: MakeSimulator, connect: Connect, make_workflow: Workflow
) -> None:
    simulator = await make_simulator(job_seconds=5.0)
    client = connect(simulator.url)
    prompt_id = new_prompt_id()
    async with client.listener(backoff=fast()) as listener:
        await anext(listener)
        await client.submit(make_workflow(), prompt_id)
        await collect_until(listener, lambda e: isinstance(e, ExecutionStart))
        await simulator.restart()
        events = await collect_until(listener, lambda e: isinstance(e, Reconnected))
    assert not any(isinstance(e, ExecutionSuccess) for e in events)
    assert (await client.lookup(prompt_id)).state.value == "unknown"


@pytest.mark.asyncio
async def test_token_on_the_websocket(make_simulator: MakeSimulator, connect: Connect) -> None:
    simulator = await make_simulator(token="s3cret")
    async with connect(simulator.url).listener(backoff=fast()) as listener:
        with pytest.raises(ComfyAuthError):
            await anext(listener)
    client = connect(simulator.url, auth=BearerAuth("s3cret"))
    async with client.listener(backoff=fast()) as listener:
        assert await anext(listener) == Connected(client.client_id)
        assert isinstance(await anext(listener), Status)


@pytest.mark.asyncio
async def test_server_stop_then_back_on_the_same_port(
    make_simulator: MakeSimulator, connect: Connect
) -> None:
    simulator = await make_simulator()
    client = connect(simulator.url)
    port = int(simulator.url.rsplit(":", 1)[1])
    async with client.listener(backoff=fast()) as listener:
        await anext(listener)
        await simulator.stop()
        drops = await collect_until(listener, lambda e: isinstance(e, Disconnected), limit=5)
        assert isinstance(drops[-1], Disconnected)
        await simulator.start(port=port)
        events = await collect_until(listener, lambda e: isinstance(e, Reconnected))
    failed = [e for e in events if isinstance(e, Disconnected)]
    assert all(e.retry_in > 0 for e in failed)
