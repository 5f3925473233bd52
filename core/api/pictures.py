"""Pictures through the API: a token holder is not the artist, so the API never reads a path on
this computer's disk. ``POST /v1/pictures?file=NAME.png`` takes the picture's bytes as the body
(at most ``MAX_PICTURE_BYTES``, 413 past it while reading), checks and keeps them as the
artist's own pictures are kept (``PictureStore.add_bytes``) and answers the picture's value; a
batch body may then set an input to that value, and only to a picture the store holds
(``check_pictures``)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from aiohttp import web

from core.api.auth import LEDGER
from core.api.bodies import picture_file, read_body
from core.api.errors import ApiError
from core.api.reads import off_the_loop
from core.inputs import MAX_PICTURE_BYTES, PictureRef, PictureStore, pictures_json

if TYPE_CHECKING:
    from collections.abc import Iterator

    from core.batch.request import BatchRequest
    from core.ledger import JobRecord


async def add_picture(request: web.Request) -> web.Response:
    """Keep the body's picture (``?file=`` names it); 201 with its value, ``{"picture":
    {"sha256", "file", "source": "api:FILE", "size"}}``, for a batch's ``set`` or ``grid``."""
    file = picture_file(request.query.get("file", ""), "file")
    data = await read_body(request, MAX_PICTURE_BYTES)
    store = PictureStore.of(request.app[LEDGER])
    ref = await off_the_loop(request, partial(store.add_bytes, data, file))
    return web.json_response(ref.to_param(), status=201)


def check_pictures(store: PictureStore, asked: BatchRequest) -> None:
    """Refuse a batch that sets a picture the store does not hold (a made-up hash, or a
    picture never sent): 400 naming the field. A file read: off the loop."""
    for field, ref in _pictures(asked):
        if not store.has(ref):
            raise ApiError(
                400,
                f"{field}: no picture {ref.sha256} of {ref.size} bytes was sent to Batchline: "
                "send it first (POST /v1/pictures) and give the value it answers",
            )


def _pictures(asked: BatchRequest) -> Iterator[tuple[str, PictureRef]]:
    """Each picture of the batch with the field that sets it (``set.1.image``,
    ``grid.1.image[3]``), in the body's order."""
    overrides: dict[str, Any] = (
        dict(asked.overrides) if not isinstance(asked.overrides, tuple) else {}
    )
    for key, value in overrides.items():
        ref = PictureRef.from_param(value)
        if ref is not None:
            yield f"set.{key}", ref
    for axis in asked.grid:
        for i, value in enumerate(axis.values):
            ref = PictureRef.from_param(value)
            if ref is not None:
                yield f"grid.{axis.input}[{i}]", ref


def with_pictures(data: dict[str, Any], job: JobRecord) -> dict[str, Any]:
    """A job's JSON with its pictures (``pictures``: ``NODE.INPUT -> {file, source, sha256,
    size}``), as `batchline show --json` gives it."""
    return {**data, "pictures": pictures_json(job.params)}
