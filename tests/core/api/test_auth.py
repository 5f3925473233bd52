"""Bearer tokens: without a known token only the OpenAPI document is served."""

from __future__ import annotations

import pytest

from tests.core.api.conftest import Api

pytestmark = pytest.mark.asyncio


async def test_without_a_known_token_only_the_document_is_served(api: Api) -> None:
    async with api.client(None) as http:
        assert (await http.get("/v1/openapi.json")).status_code == 200
        missing = await http.get("/v1/jobs")
        wrong = await http.get("/v1/jobs", headers={"Authorization": "Bearer btl_nope"})
        basic = await http.get("/v1/jobs", headers={"Authorization": "Basic YTpi"})
    for answer in (missing, wrong, basic):
        assert answer.status_code == 401
        assert answer.json()["error"] == "unauthorized"
        assert answer.headers["WWW-Authenticate"] == 'Bearer realm="batchline"'
    api.ledger.tokens.revoke("alice")
    async with api.client() as http:
        assert (await http.get("/v1/status")).status_code == 401
