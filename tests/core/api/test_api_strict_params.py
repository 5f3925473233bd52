"""Every number in a route's path or query is ASCII digits within bounds, every name written
through the API follows the one rule of names: 400 (or 404 for a picture not there) in the
API's error shape, never a 500."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.ledger import NewJob
from tests.core.api.conftest import Api
from tests.core.helpers import NOISE_WORKFLOW, succeed

pytestmark = pytest.mark.asyncio

NOT_ASCII_DIGITS = ["²", "١", "1_0", " 1", "1 ", "+1", "0x1", "1e3", "-1", "9" * 41]


@pytest.mark.parametrize("limit", NOT_ASCII_DIGITS)
async def test_a_page_size_not_in_ascii_digits_is_400(api: Api, limit: str) -> None:
    async with api.client() as http:
        answer = await http.get("/v1/jobs", params={"limit": limit})
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"] == "bad_request"
    assert answer.json()["message"] == "limit: must be a whole number from 1 to 10000"


@pytest.mark.parametrize("n", NOT_ASCII_DIGITS)
async def test_a_picture_number_not_in_ascii_digits_is_not_there(
    api: Api, tmp_path: Path, n: str
) -> None:
    picture = tmp_path / "a.png"
    picture.write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    _batch, (job,) = api.ledger.create_batch("noise", [NewJob({})], requester="alice")
    api.ledger.submit_attempt(job, "p1", "http://x", "wf")
    api.ledger.observe_queued("p1", 1)
    api.ledger.observe_running("p1")
    succeed(api.ledger, "p1", [str(picture)])
    async with api.client() as http:
        answer = await http.get(f"/v1/jobs/{job}/outputs/{n}")
        assert (await http.get(f"/v1/jobs/{job}/outputs/0")).status_code == 200
    assert answer.status_code == 404, answer.text
    assert answer.json()["error"] == "not_found"
    assert "numbered from 0: 0 to 0" in answer.json()["message"]


@pytest.mark.parametrize(
    ("name", "rule"),
    [
        ("a\u202eb", "a bidirectional control (U+202E)"),
        ("a\nb", "a control character (U+000A)"),
        ("a\x00b", "a control character (U+0000)"),
        ("a/b", "a path separator"),
        ("..", "cannot be called '..'"),
        ("x" * 201, "at most 200 characters"),
    ],
)
async def test_a_preset_name_breaking_the_rule_is_400_naming_it(
    api: Api, name: str, rule: str
) -> None:
    async with api.client() as http:
        answer = await http.post(
            "/v1/presets", params={"name": name}, content=json.dumps(NOISE_WORKFLOW)
        )
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"] == "bad_request"
    assert rule in answer.json()["message"]
    assert "\n" not in answer.json()["message"]
    assert [record.name for record in api.ledger.presets.all()] == ["noise"]
