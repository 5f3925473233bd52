"""The OpenAPI document describes every route the API serves, and the address rules."""

from __future__ import annotations

import asyncio
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from aiohttp import web

from core.api import ApiConfig, make_app, parse_listen
from core.api.bodies import BATCH_FIELDS, MAX_FILE_NAME
from core.api.openapi import DOCUMENT
from core.batch.wildcard_spec import MODES
from core.errors import InputError
from core.inputs import PictureRef, picture_json
from core.ledger import Ledger
from tests.core.api.conftest import Api


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


def test_a_picture_value_is_documented_as_the_route_answers_it_and_a_batch_takes_it() -> None:
    schemas = DOCUMENT["components"]["schemas"]
    ref = PictureRef("ab" * 32, "a.png", "api:a.png", 10)
    value = ref.to_param()
    assert set(schemas["PictureValue"]["properties"]) == set(value)
    assert set(schemas["Picture"]["required"]) == set(value["picture"])
    assert schemas["Picture"]["properties"]["file"]["maxLength"] == MAX_FILE_NAME
    route = DOCUMENT["paths"]["/v1/pictures"]["post"]
    assert route["security"] == [{"bearer": []}], "a token, as for a batch"
    assert route["responses"]["201"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/PictureValue"
    }
    batch = schemas["BatchRequest"]["properties"]
    axis = {"$ref": "#/components/schemas/AxisValue"}
    assert batch["set"]["additionalProperties"] == batch["grid"]["additionalProperties"]["items"]
    assert batch["set"]["additionalProperties"] == axis
    assert {"$ref": "#/components/schemas/PictureValue"} in schemas["AxisValue"]["anyOf"]
    job = schemas["Job"]["properties"]["pictures"]["additionalProperties"]
    assert set(job["properties"]) == set(picture_json(ref))


@pytest.mark.asyncio
@pytest.mark.expect_log("batchline.api.http", "ERROR")  # once a minute (core/api/quiet_log.py)
async def test_a_request_http_cannot_read_is_answered_as_documented(api: Api) -> None:
    """Found by the schema fuzzer: a Content-Length that is no number is refused by the HTTP
    layer before the API reads the request, 400 in plain text, which the document did not
    list."""
    where = urlsplit(api.url)
    reader, writer = await asyncio.open_connection(where.hostname, where.port)
    writer.write(
        b"POST /v1/jobs/x/cancel HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: =9k0dYk\r\n\r\n"
    )
    await writer.drain()
    head = (await asyncio.wait_for(reader.read(4096), 5)).decode("latin-1")
    writer.close()
    status = head.split(" ", 2)[1]
    content_type = next(
        line.split(":", 1)[1].split(";")[0].strip()
        for line in head.split("\r\n")
        if line.lower().startswith("content-type:")
    )
    documented = DOCUMENT["paths"]["/v1/jobs/{job}/cancel"]["post"]["responses"][status]
    assert (status, content_type) == ("400", "text/plain")
    assert content_type in documented["content"]
