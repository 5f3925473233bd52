"""The OpenAPI document describes every route the API serves, and the address rules."""

from __future__ import annotations

from pathlib import Path

import pytest
from aiohttp import web

from core.api import ApiConfig, make_app, parse_listen
from core.api.bodies import BATCH_FIELDS
from core.api.openapi import DOCUMENT
from core.batch.wildcard_spec import MODES
from core.errors import InputError
from core.ledger import Ledger


def test_every_route_is_documented_and_every_documented_route_served(tmp_path: Path) -> None:
    with Ledger(tmp_path) as ledger:
        app = make_app(ledger, ApiConfig())
    served = {
        (route.method.lower(), route.resource.canonical)
        for route in app.router.routes()
        if route.method != "HEAD" and isinstance(route.resource, web.Resource)
    }
    documented = {
        (method, path) for path, operations in DOCUMENT["paths"].items() for method in operations
    }
    assert served == documented


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("127.0.0.1:8190", ("127.0.0.1", 8190)),
        ("[::1]:0", ("::1", 0)),
        ("localhost:80", ("localhost", 80)),
    ],
)
def test_loopback_addresses_are_taken_as_they_are(text: str, expected: tuple[str, int]) -> None:
    assert parse_listen(text) == expected


def test_other_addresses_need_to_be_allowed(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"0\.0\.0\.0 is not a loopback address"):
        parse_listen("0.0.0.0:8190")
    assert parse_listen("0.0.0.0:8190", allow_remote=True) == ("0.0.0.0", 8190)
    for text in ("8190", "host:", ":80", "127.0.0.1:99999", "127.0.0.1:http", "127.0.0.1:²"):
        with pytest.raises(InputError, match="is not HOST:PORT"):
            parse_listen(text)


def test_the_batch_request_document_names_exactly_the_fields_a_batch_body_takes() -> None:
    schema = DOCUMENT["components"]["schemas"]["BatchRequest"]
    assert set(schema["properties"]) == BATCH_FIELDS
    assert schema["properties"]["wildcards"]["additionalProperties"]["enum"] == list(MODES)
    zipped = schema["properties"]["zip"]
    assert zipped["items"] == {"type": "array", "items": {"type": "string"}, "minItems": 2}
