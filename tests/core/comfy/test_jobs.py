"""Version-independent verbs (lookup, cancel) on a 0.3.64 server and on one with the jobs API."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from core.comfy import ComfyClient, HistoryEntry, PromptState, new_prompt_id
from core.simulator import Simulator

Connect = Callable[..., ComfyClient]
MakeSimulator = Callable[..., Awaitable[Simulator]]
Workflow = Callable[..., dict[str, Any]]
Finished = Callable[[ComfyClient, str], Awaitable[HistoryEntry]]
Running = Callable[[ComfyClient, str], Awaitable[None]]

# (version, has /api/jobs, has POST /api/jobs/{id}/cancel): 0.15.0 had the jobs API without the
# cancel route, and answers it 405 (the frontend's static root takes GET only).
VERSIONS = [
    pytest.param("0.3.64", False, False, id="legacy"),
    pytest.param("0.15.0", True, False, id="jobs-without-cancel"),
    pytest.param("0.38.1", True, True, id="jobs"),
]


@pytest.mark.asyncio
@pytest.mark.parametrize(("version", "jobs_api", "cancel_route"), VERSIONS)
async def test_detection(
    make_simulator: MakeSimulator,
    connect: Connect,
    version: str,
    jobs_api: bool,
    cancel_route: bool,
) -> None:
    client = connect((await make_simulator(version=version)).url)
    assert await client.has_jobs_api() is jobs_api


@pytest.mark.asyncio
@pytest.mark.parametrize(("version", "jobs_api", "cancel_route"), VERSIONS)
async def test_lookup_through_a_job_life(
    make_simulator: MakeSimulator,
    connect: Connect,
    make_workflow: Workflow,
    running: Running,
    finished: Finished,
    version: str,
    jobs_api: bool,
    cancel_route: bool,
) -> None:
    simulator = await make_simulator(version=version, job_seconds=0.6)
    client = connect(simulator.url)
    first, second = new_prompt_id(), new_prompt_id()
    assert (await client.lookup(first)).state is PromptState.unknown
    await client.submit(make_workflow(1), first)
    await client.submit(make_workflow(2), second)
    await running(client, first)
    assert (await client.lookup(first)).state is PromptState.running
    assert (await client.lookup(second)).state is PromptState.pending
    await finished(client, second)
    done = await client.lookup(first)
    assert done.state is PromptState.finished
    assert done.entry is not None
    assert done.entry.succeeded
    assert [image.node_id for image in done.entry.images] == ["2"]


@pytest.mark.asyncio
@pytest.mark.parametrize(("version", "jobs_api", "cancel_route"), VERSIONS)
async def test_cancel_running_and_pending(
    make_simulator: MakeSimulator,
    connect: Connect,
    make_workflow: Workflow,
    running: Running,
    finished: Finished,
    version: str,
    jobs_api: bool,
    cancel_route: bool,
) -> None:
    simulator = await make_simulator(version=version, job_seconds=3.0)
    client = connect(simulator.url)
    first, second = new_prompt_id(), new_prompt_id()
    await client.submit(make_workflow(1), first)
    await client.submit(make_workflow(2), second)
    await running(client, first)

    expected = True if cancel_route else None
    assert await client.cancel(second) is expected
    assert (await client.lookup(second)).state is PromptState.unknown
    assert await client.cancel(first) is expected
    await finished(client, first)
    result = await client.lookup(first)
    assert result.entry is not None
    assert result.entry.failure is not None
    assert result.entry.failure.kind == "interrupted"
    assert simulator.execution_count(second) == 0
    if cancel_route:
        assert await client.cancel(first) is False  # finished: nothing to cancel


@pytest.mark.asyncio
async def test_job_detail_of_an_oom(
    make_simulator: MakeSimulator, connect: Connect, make_workflow: Workflow, finished: Finished
) -> None:
    simulator = await make_simulator(version="0.38.1")
    simulator.fail_next(1, kind="oom")
    client = connect(simulator.url)
    prompt_id = new_prompt_id()
    await client.submit(make_workflow(), prompt_id)
    await finished(client, prompt_id)
    detail = await client.job(prompt_id)
    assert detail is not None
    assert (detail.id, detail.status) == (prompt_id, "failed")
    assert detail.failure is not None
    assert detail.failure.kind == "oom"
    assert await client.job(new_prompt_id()) is None
