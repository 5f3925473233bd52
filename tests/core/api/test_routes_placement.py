"""The API says where a batch can run as it queues it, why a pending job waits, and why each
attempt went where it went; each answer as its OpenAPI document says (two real simulators'
offers stored as the controller stores them)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest

from core.api.openapi import DOCUMENT
from core.controller.placing_said import host_text
from core.ledger.settings import SERVER
from core.presets import preset_from_api
from core.presets.storing import store_preset
from tests.core.api.conftest import Api
from tests.core.controller.model_servers import (
    BASE,
    NOWHERE,
    REFINER,
    ModelServers,
    ckpt_workflow,
    model_servers,
)

__all__ = ["model_servers"]


def conforms(data: Any, schema: str) -> None:
    jsonschema_rs.validator_for({**DOCUMENT, "$ref": f"#/components/schemas/{schema}"}).validate(
        data
    )


def set_up(api: Api, servers: ModelServers) -> None:
    SERVER.set(api.ledger, ",".join(servers.urls))
    servers.store_offers(api.ledger)
    store_preset(api.ledger, "ckpt", preset_from_api(ckpt_workflow(), Path("ckpt.json")))


@pytest.mark.asyncio
async def test_a_batch_post_says_per_server_what_it_lacks(
    api: Api, model_servers: ModelServers
) -> None:
    set_up(api, model_servers)
    body = {"preset": "ckpt", "grid": {"4.ckpt_name": [BASE, REFINER]}}
    async with api.client() as http:
        answer = await http.post("/v1/batches", json=body)
    assert answer.status_code == 201
    created = answer.json()
    conforms(created, "BatchCreated")
    placement = created["placement"]
    full, base_only = host_text(model_servers.full.url), host_text(model_servers.base_only.url)
    assert placement["text"] == f"{full} has everything; {base_only} lacks {REFINER}"
    assert (placement["known"], placement["runs"], placement["unplaceable"]) == (True, True, 0)


@pytest.mark.asyncio
async def test_a_batch_no_server_can_run_is_queued_and_its_jobs_say_why_they_wait(
    api: Api, model_servers: ModelServers
) -> None:
    set_up(api, model_servers)
    body = {"preset": "ckpt", "grid": {"4.ckpt_name": [NOWHERE, BASE]}}
    async with api.client() as http:
        created = (await http.post("/v1/batches", json=body)).json()
        waiting, runnable = created["jobs"]
        shown = (await http.get(f"/v1/jobs/{waiting}")).json()
        listed = (await http.get("/v1/jobs", params={"batch": created["batch"]})).json()
    assert created["placement"]["runs"] is False
    assert created["placement"]["unplaceable"] == 1
    conforms(shown, "Job")
    conforms(listed, "JobList")
    assert shown["waiting_for"] == f"no server has {NOWHERE}"
    by_id = {job["id"]: job["waiting_for"] for job in listed["jobs"]}
    assert by_id == {waiting: f"no server has {NOWHERE}", runnable: None}


@pytest.mark.asyncio
async def test_an_attempt_carries_why_it_went_where_it_went(api: Api) -> None:
    async with api.client() as http:
        (job,) = (await http.post("/v1/batches", json={"preset": "noise"})).json()["jobs"]
        workflow = api.ledger.batch(api.ledger.job(job).batch).workflow_hash
        api.ledger.submit_attempt(
            job,
            "p-1",
            "http://gpu-2:8188",
            workflow,
            placed_because="gpu-2: the only server with x",
        )
        shown = (await http.get(f"/v1/jobs/{job}")).json()
    conforms(shown, "Job")
    assert shown["attempts"][0]["placed_because"] == "gpu-2: the only server with x"


@pytest.mark.asyncio
async def test_a_job_event_carries_why_it_waits(api: Api, model_servers: ModelServers) -> None:
    set_up(api, model_servers)
    async with api.client() as http, http.stream("GET", "/v1/events") as stream:
        lines = stream.aiter_lines()
        body = {"preset": "ckpt", "grid": {"4.ckpt_name": [NOWHERE]}}
        (job,) = (await http.post("/v1/batches", json=body)).json()["jobs"]
        async for line in lines:
            if line.startswith("data: "):
                data = json.loads(line[6:])
                break
    assert data["id"] == job
    conforms(data, "Job")
    assert data["waiting_for"] == f"no server has {NOWHERE}"
