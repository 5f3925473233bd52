"""Version-independent verbs (lookup, cancel) on a 0.3.64 server and on one with the jobs API:
the probe for the jobs API, and its job details parsed from recorded answers."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

from core.comfy import (
    ComfyClient,
    HistoryEntry,
    PromptState,
    new_prompt_id,
)
from core.comfy.jobs import parse_job_detail
from core.errors import (
    ComfyProtocolError,
    ComfyServerError,
)
from simulator import Simulator
from tests.core.comfy.conftest import Handler, answer, raw


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("handler", "expected"),
    [
        (raw("404: Not Found", 404), False),
        (raw("Method Not Allowed", 405), False),
        (raw("<html>frontend</html>"), False),
        (answer({"items": []}), False),
        (answer({"jobs": [], "pagination": {}}), True),
    ],
)
async def test_jobs_api_probe_runs_once(
    mock_client: ComfyClient, routes: dict[str, Handler], handler: Handler, expected: bool
) -> None:
    calls: list[str] = []

    def probe(request: httpx.Request) -> httpx.Response:
        calls.append(str(request.url.params))
        return handler(request)

    routes["GET /api/jobs"] = probe
    assert await mock_client.has_jobs_api() is expected
    assert await mock_client.has_jobs_api() is expected
    assert calls == ["limit=1"]


@pytest.mark.asyncio
async def test_failed_probe_is_not_cached(
    mock_client: ComfyClient, routes: dict[str, Handler]
) -> None:
    routes["GET /api/jobs"] = raw("boom", 500)
    with pytest.raises(ComfyServerError):
        await mock_client.has_jobs_api()
    routes["GET /api/jobs"] = answer({"jobs": []})
    assert await mock_client.has_jobs_api()


@pytest.mark.asyncio
async def test_hostile_cancel_answer(mock_client: ComfyClient, routes: dict[str, Handler]) -> None:
    routes["GET /api/jobs"] = answer({"jobs": []})
    routes["POST /api/jobs/p/cancel"] = answer({"cancelled": "yes"})
    with pytest.raises(ComfyProtocolError, match="POST /api/jobs/p/cancel"):
        await mock_client.cancel("p")


@pytest.mark.asyncio
async def test_unknown_job_status_is_a_protocol_error(
    mock_client: ComfyClient, routes: dict[str, Handler]
) -> None:
    routes["GET /api/jobs"] = answer({"jobs": []})
    routes["GET /api/jobs/p"] = answer({"id": "p", "status": "teleported"})
    with pytest.raises(ComfyProtocolError, match=r"job\.status"):
        await mock_client.lookup("p")


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


def test_job_detail() -> None:
    job = parse_job_detail({"id": "p", "status": "pending", "priority": 3}, "GET /api/jobs/p")
    assert (job.id, job.status, job.priority, job.finished) == ("p", "pending", 3, False)
    detail = {
        "id": "p",
        "status": "failed",
        "outputs": {},
        "execution_status": {
            "status_str": "error",
            "completed": False,
            "messages": [["execution_error", {"exception_type": "torch.OutOfMemoryError"}]],
        },
    }
    entry = parse_job_detail(detail, "GET /api/jobs/p").to_history_entry()
    assert entry.failure is not None
    assert entry.failure.kind == "oom"
    assert (entry.status, entry.completed) == ("error", False)


def test_cancelled_job_counts_as_interrupted() -> None:
    job = parse_job_detail({"id": "p", "status": "cancelled"}, "GET /api/jobs/p")
    assert job.failure is not None
    assert job.failure.kind == "interrupted"
