"""Tests for simulator.jobs_api: the newer servers' /api/jobs, listing, describing, cancelling."""

from __future__ import annotations

import uuid
from typing import Any

import aiohttp
import pytest

from simulator import Simulator
from tests.simulator.sim_helpers import (
    checkpoint,
    get,
    post,
    quick,
    submit,
    wait_history,
    wait_running,
)

NEWER = "0.38.1"


@pytest.mark.asyncio
async def test_jobs_api_lists_and_describes_jobs(make_simulator: Any) -> None:
    sim: Simulator = await make_simulator(version=NEWER)
    async with aiohttp.ClientSession() as session:
        done = await submit(session, sim, quick(1))
        await wait_history(session, sim, done)
        sim.hang_next()
        running = await submit(session, sim, quick(2))
        await wait_running(sim, running)
        pending = await submit(session, sim, quick(3))
        status, listing = await get(session, sim.url + "/api/jobs")
        assert status == 200
        _, detail = await get(session, f"{sim.url}/api/jobs/{done}")
        _, only_pending = await get(session, sim.url + "/api/jobs?status=pending")
        assert (await get(session, sim.url + "/api/jobs?status=bogus"))[0] == 400
        assert (await get(session, f"{sim.url}/api/jobs/{uuid.uuid4()}")) == (
            404, {"error": "Job not found"},
        )  # fmt: skip
    statuses = {job["id"]: job["status"] for job in listing["jobs"]}
    assert statuses == {done: "completed", running: "in_progress", pending: "pending"}
    assert listing["pagination"]["total"] == 3
    assert detail["outputs_count"] == 1
    assert detail["preview_output"]["filename"] == "quick_00001_.png"
    assert detail["execution_status"]["status_str"] == "success"
    assert [job["id"] for job in only_pending["jobs"]] == [pending]


@pytest.mark.asyncio
async def test_jobs_api_cancels_pending_and_running_jobs(make_simulator: Any) -> None:
    sim: Simulator = await make_simulator(version=NEWER, job_seconds=2.0)
    async with aiohttp.ClientSession() as session:
        running = await submit(session, sim, checkpoint(steps=100))
        pending = await submit(session, sim, quick(1))
        await wait_running(sim, running)
        assert await post(session, f"{sim.url}/api/jobs/{pending}/cancel", {}) == (
            200, {"cancelled": True},
        )  # fmt: skip
        status, body = await post(session, sim.url + "/api/jobs/cancel", {"job_ids": [running]})
        assert (status, body) == (200, {"cancelled": True})
        entry = await wait_history(session, sim, running)
        _, job = await get(session, f"{sim.url}/api/jobs/{running}")
        assert (await post(session, sim.url + "/api/jobs/cancel", {"job_ids": ["x"]}))[0] == 400
        assert await post(session, f"{sim.url}/api/jobs/{running}/cancel", {}) == (
            200, {"cancelled": False},
        )  # fmt: skip
    assert entry["status"]["messages"][-1][0] == "execution_interrupted"
    assert job["status"] == "cancelled"
    assert sim.execution_count(pending) == 0


@pytest.mark.asyncio
async def test_jobs_api_query_rules_and_output_summary(make_simulator: Any) -> None:
    """As comfy_execution/jobs.py and server.py (Comfy-Org/ComfyUI 172be43, 002c3fb) do."""
    sim: Simulator = await make_simulator(version=NEWER)
    mixed = {
        "1": {"class_type": "EmptyImage",
              "inputs": {"width": 64, "height": 64, "batch_size": 1, "color": 5}},
        "2": {"class_type": "PreviewImage", "inputs": {"images": ["1", 0]}},
        "3": {"class_type": "PreviewAny", "inputs": {"source": ["1", 0]}},
        "4": {"class_type": "SaveImage", "inputs": {"images": ["1", 0], "filename_prefix": "mix"}},
    }  # fmt: skip
    async with aiohttp.ClientSession() as session:
        done = await submit(session, sim, mixed)
        await wait_history(session, sim, done)
        sim.hang_next()
        running = await submit(session, sim, quick(2))
        await wait_running(sim, running)
        jobs = sim.url + "/api/jobs"
        _, listing = await get(session, jobs + "?status=%20Completed,,IN_PROGRESS&offset=-4")
        _, unfiltered = await get(session, jobs + "?status=&workflow_id=")
        assert (await get(session, jobs + "?limit=0"))[0] == 400
        assert await get(session, jobs + "?limit=x") == (400, {"error": "limit must be an integer"})
        assert (await get(session, jobs + "?sort_order=ASC"))[0] == 200
    assert listing["pagination"] == {"offset": 0, "limit": None, "total": 2, "has_more": False}
    assert unfiltered["pagination"]["total"] == 2
    by_id = {job["id"]: job for job in listing["jobs"]}
    queued = by_id[running]
    assert (queued["outputs_count"], queued["previewable_outputs_count"]) == (0, 0)
    assert "execution_start_time" not in queued  # the real server has no times before history
    finished = by_id[done]
    assert (finished["outputs_count"], finished["previewable_outputs_count"]) == (2, 2)
    assert finished["preview_output"]["type"] == "output"  # the saved image beats the preview
    assert (finished["preview_output"]["nodeId"], finished["preview_output"]["mediaType"]) == (
        "4", "images",
    )  # fmt: skip


@pytest.mark.asyncio
async def test_jobs_api_before_its_cancel_routes(make_simulator: Any) -> None:
    """0.15.0 has GET /api/jobs but no cancel routes; POSTs there meet the static root: 405."""
    sim: Simulator = await make_simulator(version="0.15.0")
    async with aiohttp.ClientSession() as session:
        pending = await submit(session, sim, quick(1))
        assert (await get(session, sim.url + "/api/jobs"))[0] == 200
        assert (await post(session, f"{sim.url}/api/jobs/{pending}/cancel", {}))[0] == 405
        assert (await post(session, sim.url + "/api/jobs/cancel", {"job_ids": [pending]}))[0] == 405
        assert (await get(session, sim.url + "/no/such/file"))[0] == 404
