"""POST /v1/comfyui/workflows: a workflow sent from ComfyUI's editor becomes the requester's
preset (a new version, never another owner's), and the route answers CORS for the ComfyUI
servers in the settings and the origins added explicitly only, the token still required."""

from __future__ import annotations

from typing import Any

import pytest

from core.api import comfyui_send
from core.api.comfyui_send import ROUTE, origin_of
from core.ledger.arrivals import latest_arrival
from core.ledger.settings import ALLOWED_ORIGINS, SERVER
from core.ledger.windows import WindowPresence
from tests.core.api.conftest import Api
from tests.core.helpers import NOISE_WORKFLOW

COMFY = "http://127.0.0.1:8188"  # the default server: allowed while server.url is unset
EDITOR = {"nodes": [{"id": 1, "type": "EmptyImage"}], "links": []}


def body(name: str = "Fox portrait", prompt: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"name": name, "workflow": EDITOR, "prompt": prompt or NOISE_WORKFLOW, "comfyui": COMFY}


def preflight(origin: str, **extra: str) -> dict[str, str]:
    return {
        "Origin": origin,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization,content-type",
        **extra,
    }


@pytest.mark.asyncio
async def test_a_sent_workflow_is_stored_and_sent_again_is_a_new_version(api: Api) -> None:
    other = dict(NOISE_WORKFLOW)
    other["99"] = {"class_type": "EmptyImage", "inputs": {"width": 8}}
    async with api.client() as http:
        first = await http.post(ROUTE, json=body(), headers={"Origin": COMFY})
        same = await http.post(ROUTE, json=body())
        changed = await http.post(ROUTE, json=body(prompt=other))
    assert first.status_code == 201
    assert first.json() == {
        "preset": "Fox portrait",
        "version": 1,
        "outcome": "created",
        "message": "Sent to Batchline as 'Fox portrait'",
        "window": False,
    }
    assert first.headers["Access-Control-Allow-Origin"] == COMFY
    assert first.headers["Vary"] == "Origin"
    assert (same.json()["outcome"], same.json()["version"]) == ("unchanged", 1)
    assert (changed.json()["outcome"], changed.json()["version"]) == ("updated", 2)
    assert same.json()["message"] == "Already in Batchline as 'Fox portrait' (version 1)"
    assert changed.json()["message"] == "Sent to Batchline as 'Fox portrait' (version 2)"
    record = api.ledger.presets_for("alice").get("Fox portrait")
    assert record.editor_workflow == EDITOR
    assert record.stored_by.name == "alice"
    versions = api.ledger.presets.versions("Fox portrait")
    assert [v.origin for v in versions] == [COMFY, COMFY]
    arrival = latest_arrival(api.ledger)
    assert arrival is not None
    assert (arrival.preset, arrival.version, arrival.requester) == ("Fox portrait", 2, "alice")


@pytest.mark.asyncio
async def test_the_artists_preset_is_never_overwritten_by_a_token(api: Api) -> None:
    before = api.ledger.presets.get("noise")
    async with api.client() as http:
        sent = await http.post(ROUTE, json=body("noise", prompt={**NOISE_WORKFLOW}))
    async with api.client("bob") as http:
        other = await http.post(ROUTE, json=body("noise"))
    assert (sent.json()["preset"], sent.json()["outcome"]) == ("noise (2)", "created")
    assert other.json()["preset"] == "noise (3)"  # alice's "noise (2)" is not bob's
    assert api.ledger.presets.get("noise") == before
    assert len(api.ledger.presets.versions("noise")) == 1


@pytest.mark.asyncio
async def test_window_says_whether_a_window_watches_the_ledger(api: Api) -> None:
    presence = WindowPresence(api.ledger.folder)
    presence.hold()
    try:
        async with api.client() as http:
            sent = await http.post(ROUTE, json=body())
    finally:
        presence.release()
    assert sent.json()["window"] is True


@pytest.mark.asyncio
async def test_a_bad_body_names_the_field_and_a_big_one_is_413(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with api.client() as http:
        no_name = await http.post(ROUTE, json={**body(), "name": ""})
        no_graph = await http.post(ROUTE, json={**body(), "workflow": []})
        no_prompt = await http.post(ROUTE, json={**body(), "prompt": {}})
        bad_prompt = await http.post(ROUTE, json={**body(), "prompt": {"1": 5}})
        extra = await http.post(ROUTE, json={**body(), "colour": 1})
        monkeypatch.setattr(comfyui_send, "MAX_SEND_BYTES", 100)
        big = await http.post(ROUTE, json=body())
    answers = [no_name, no_graph, no_prompt, bad_prompt, extra]
    assert [a.status_code for a in answers] == [400] * 5
    fields = [a.json()["message"].split(":")[0] for a in answers]
    assert fields == ["name", "workflow", "prompt", "prompt", "colour"]
    assert big.status_code == 413


@pytest.mark.asyncio
async def test_an_allowed_origins_preflight_gets_the_least_it_needs(api: Api) -> None:
    async with api.client(None) as http:  # a preflight carries no token
        answer = await http.options(ROUTE, headers=preflight(COMFY))
        private = await http.options(
            ROUTE, headers=preflight(COMFY, **{"Access-Control-Request-Private-Network": "true"})
        )
    assert answer.status_code == 204
    assert answer.headers["Access-Control-Allow-Origin"] == COMFY
    assert answer.headers["Access-Control-Allow-Methods"] == "POST"
    assert answer.headers["Access-Control-Allow-Headers"] == "Authorization, Content-Type"
    assert answer.headers["Vary"] == "Origin"
    assert "Access-Control-Allow-Private-Network" not in answer.headers
    assert "Access-Control-Allow-Credentials" not in answer.headers
    assert private.headers["Access-Control-Allow-Private-Network"] == "true"


@pytest.mark.asyncio
async def test_a_foreign_origin_gets_no_cors_headers_at_all(api: Api) -> None:
    evil = "http://evil.example"
    async with api.client(None) as http:
        refused = await http.options(ROUTE, headers=preflight(evil))
    async with api.client() as http:
        posted = await http.post(ROUTE, json=body(), headers={"Origin": evil})
        sneaky = await http.post(ROUTE, json=body(), headers={"Origin": COMFY + "/"})
    for answer in (refused, posted, sneaky):
        assert answer.status_code == 403
        assert not [h for h in answer.headers if h.lower().startswith("access-control")]
    assert "evil.example may not send here" in posted.json()["message"]
    assert api.ledger.presets_for("alice").names() == ["noise"]


@pytest.mark.asyncio
async def test_the_token_is_still_required_and_its_refusal_is_readable(api: Api) -> None:
    async with api.client(None) as http:
        answer = await http.post(ROUTE, json=body(), headers={"Origin": COMFY})
    assert answer.status_code == 401
    assert answer.headers["Access-Control-Allow-Origin"] == COMFY  # the page can say why


@pytest.mark.asyncio
async def test_settings_changes_hold_without_a_restart(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(comfyui_send, "ORIGINS_CACHE_S", 0.0)
    async with api.client(None) as http:
        before = await http.options(ROUTE, headers=preflight("http://box.lan:8188"))
        SERVER.set(api.ledger, "http://box.lan:8188")
        served = await http.options(ROUTE, headers=preflight("http://box.lan:8188"))
        default_gone = await http.options(ROUTE, headers=preflight(COMFY))
        ALLOWED_ORIGINS.set(api.ledger, "https://comfy.example, http://10.0.0.5:8000")
        added = await http.options(ROUTE, headers=preflight("https://comfy.example"))
    assert [a.status_code for a in (before, served, default_gone, added)] == [403, 204, 403, 204]


@pytest.mark.asyncio
async def test_no_other_route_sends_cors_headers(api: Api) -> None:
    async with api.client() as http:
        status = await http.get("/v1/status", headers={"Origin": COMFY})
        options = await http.options("/v1/presets", headers=preflight(COMFY))
    assert status.status_code == 200
    for answer in (status, options):
        assert not [h for h in answer.headers if h.lower().startswith("access-control")]


def test_origins_are_compared_as_browsers_send_them() -> None:
    assert origin_of("http://127.0.0.1:8188/") == "http://127.0.0.1:8188"
    assert origin_of("HTTP://Box.LAN:80/x") == "http://box.lan"
    assert origin_of("https://[::1]:8443") == "https://[::1]:8443"
    assert origin_of("ftp://x") is None
    assert origin_of("http://x:port") is None
