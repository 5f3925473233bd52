"""Pictures through the API: a token holder is not the artist, so the API never reads a path on
this computer's disk. ``GET /v1/pictures?q=QUERY`` finds the requester's own pictures in the
window's query language (``core.pictures.search``), newest first, each with the URL that
serves it. ``POST /v1/pictures?file=NAME.png`` takes the picture's bytes as the body
(at most ``MAX_PICTURE_BYTES``, 413 past it while reading), checks and keeps them as the
artist's own pictures are kept (``PictureStore.add_bytes``) and answers the picture's value; a
batch body may then set an input to that value, and only to a picture the store holds
(``check_pictures``)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from aiohttp import web

from core.api.auth import LEDGER, requester_of
from core.api.bodies import picture_file, read_body
from core.api.errors import ApiError
from core.api.reads import off_the_loop
from core.inputs import MAX_PICTURE_BYTES, PictureRef, PictureStore, pictures_json
from core.ledger.job_json import iso
from core.pictures.search import (
    DEFAULT_LIMIT,
    MAX_LIMIT,
    MAX_OFFSET,
    Place,
    page_after,
    search,
)
from core.whole_numbers import parse_whole

if TYPE_CHECKING:
    from collections.abc import Iterator

    from core.batch.request import BatchRequest
    from core.ledger import JobRecord, Ledger
    from core.ledger.picture_index import PictureHit


async def add_picture(request: web.Request) -> web.Response:
    """Keep the body's picture (``?file=`` names it); 201 with its value, ``{"picture":
    {"sha256", "file", "source": "api:FILE", "size"}}``, for a batch's ``set`` or ``grid``."""
    file = picture_file(request.query.get("file", ""), "file")
    data = await read_body(request, MAX_PICTURE_BYTES)
    store = PictureStore.of(request.app[LEDGER])
    ref = await off_the_loop(request, partial(store.add_bytes, data, file))
    return web.json_response(ref.to_param(), status=201)


async def find_pictures(request: web.Request) -> web.Response:
    """The requester's own pictures that ``?q=`` finds (none: all), newest first, a page of
    ``?limit=`` (default 100, at most 1000) from ``?offset=``, or after ``?after=`` (the
    ``after`` of the page before: pictures finishing meanwhile bring none read into the next
    page, as an offset's would); ``next`` is the offset of the next page, ``after`` its
    place, each null on the last. A query that cannot be read is a 400 naming its part."""
    ledger, requester = request.app[LEDGER], requester_of(request)
    query = request.query.get("q", "")
    limit = _whole(request, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
    offset = _whole(request, "offset", 0, 0, MAX_OFFSET)
    after = _place(request)

    def read() -> tuple[list[dict[str, Any]], str | None]:
        if after is None:
            hits = search(ledger, query, requester=requester, limit=limit, offset=offset)
        else:
            hits = page_after(ledger, query, after, requester=requester, limit=limit)
        return _hits_json(ledger, hits), hits[-1].place.text() if len(hits) == limit else None

    pictures, last = await off_the_loop(request, read)
    following = offset + limit if len(pictures) == limit and after is None else None
    return web.json_response(
        {"query": query, "pictures": pictures, "next": following, "after": last}
    )


def _place(request: web.Request) -> Place | None:
    text = request.query.get("after")
    if text is None:
        return None
    if "offset" in request.query:
        raise ApiError(400, "after, offset: give one of them")
    place = Place.read(text)
    if place is None:
        raise ApiError(400, "after: must be the `after` of the page before (ENTRY.N)")
    return place


def _whole(request: web.Request, name: str, default: int, low: int, high: int) -> int:
    text = request.query.get(name)
    if text is None:
        return default
    value = parse_whole(text, low, high)
    if value is None:
        raise ApiError(400, f"{name}: must be a whole number from {low} to {high}")
    return value


def _hits_json(ledger: Ledger, hits: list[PictureHit]) -> list[dict[str, Any]]:
    """Each picture found, with the URL of it (``/v1/jobs/JOB/outputs/N``, N its place among
    the job's outputs as ``GET /v1/jobs/JOB`` lists them)."""
    attempts = ledger.attempts_of(list(dict.fromkeys(hit.job_id for hit in hits)))
    found = []
    for hit in hits:
        outputs = [path for a in attempts.get(hit.job_id, []) for path in a.outputs]
        n = outputs.index(str(hit.path)) if str(hit.path) in outputs else hit.index
        found.append(
            {
                "job": hit.job_id,
                "batch": hit.batch_id,
                "index": hit.index,
                "url": f"/v1/jobs/{hit.job_id}/outputs/{n}",
                "finished_at": iso(hit.finished_at),
            }
        )
    return found


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
