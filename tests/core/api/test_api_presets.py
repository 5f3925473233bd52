"""Presets belong to someone: an API requester sees the artist's presets and its own, changes
only its own (403 naming the owner otherwise), and the rule holds in the ledger's store, not
only in the route."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.batch import BatchSpec, default_requester, queue_batch
from core.errors import NotYours, UnknownRecord
from core.presets import preset_from_api
from core.presets.storing import store_preset
from tests.core.api.conftest import Api
from tests.core.helpers import NOISE_WORKFLOW

pytestmark = pytest.mark.asyncio

CHANGED = {
    **NOISE_WORKFLOW,
    "2": {**NOISE_WORKFLOW["2"], "inputs": {"seed": 7, "strength": 0.9, "image": ["1", 0]}},
}


async def test_another_token_cannot_replace_the_artists_preset(api: Api) -> None:
    artists = api.ledger.presets.get("noise").workflow_hash
    async with api.client("bob") as bob:
        refused = await bob.post("/v1/presets?name=noise&replace=true", content=json.dumps(CHANGED))
        plain = await bob.post("/v1/presets?name=noise", content=json.dumps(CHANGED))
    assert refused.status_code == 403, refused.text
    assert refused.json()["error"] == "forbidden"
    assert f"the artist's ({default_requester()}" in refused.json()["message"]
    assert plain.status_code == 403
    record = api.ledger.presets.get("noise")
    assert (record.workflow_hash, record.changed_by.via) == (artists, "local")
    batch, _ = queue_batch(api.ledger, "noise", BatchSpec())
    assert batch.workflow_hash == artists


async def test_a_requester_lists_the_artists_presets_and_its_own_only(api: Api) -> None:
    async with api.client("alice") as alice, api.client("bob") as bob:
        mine = await alice.post("/v1/presets?name=alices", content=json.dumps(CHANGED))
        assert mine.status_code == 201, mine.text
        seen_by_alice = (await alice.get("/v1/presets")).json()["presets"]
        seen_by_bob = (await bob.get("/v1/presets")).json()["presets"]
        foreign = await bob.post("/v1/batches", json={"preset": "alices"})
        also = await bob.post("/v1/presets?name=copy", content=json.dumps(CHANGED))
    assert [p["name"] for p in seen_by_alice] == ["alices", "noise"]
    assert seen_by_alice[0]["stored_by"] == {"name": "alice", "via": "api"}
    assert seen_by_alice[1]["stored_by"] == {"name": default_requester(), "via": "local"}
    assert [p["name"] for p in seen_by_bob] == ["noise"]
    assert (foreign.status_code, foreign.json()["message"]) == (404, "no preset named 'alices'")
    assert also.json()["also_named"] is None, "alice's preset is not named to bob"
    assert sorted(api.ledger.presets.names()) == ["alices", "copy", "noise"]


async def test_a_name_taken_by_another_requester_is_refused_never_replaced(api: Api) -> None:
    async with api.client("alice") as alice, api.client("bob") as bob:
        assert (await alice.post("/v1/presets?name=x", content=json.dumps(CHANGED))).is_success
        taken = await bob.post(
            "/v1/presets?name=x&replace=true", content=json.dumps(NOISE_WORKFLOW)
        )
        same = await bob.post("/v1/presets?name=x", content=json.dumps(CHANGED))
        own = await alice.post(
            "/v1/presets?name=x&replace=true", content=json.dumps(NOISE_WORKFLOW)
        )
    assert [taken.status_code, same.status_code] == [403, 403]
    assert "another requester's" in taken.json()["message"]
    assert "alice" not in taken.json()["message"]
    assert (own.status_code, own.json()["outcome"]) == (200, "replaced")
    record = api.ledger.presets.get("x")
    assert (record.stored_by.name, record.changed_by.name) == ("alice", "alice")


async def test_the_store_itself_refuses_a_requesters_change_to_anothers(api: Api) -> None:
    bobs = api.ledger.presets_for("bob")
    with pytest.raises(NotYours, match="is not yours"):
        bobs.rename("noise", "gone")
    with pytest.raises(NotYours):
        bobs.remove("noise")
    store_preset(api.ledger, "b", preset_from_api(CHANGED, Path("b.json")), requester="bob")
    with pytest.raises(UnknownRecord):
        api.ledger.presets_for("alice").remove("b")
    bobs.rename("b", "b2")
    api.ledger.presets.rename("b2", "b3")  # the artist, locally, may change any
    record = api.ledger.presets.get("b3")
    assert (str(record.stored_by), str(record.changed_by)) == (
        "bob (API)",
        f"{default_requester()} (local)",
    )
    assert api.ledger.presets.names() == ["b3", "noise"]
