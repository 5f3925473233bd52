"""Reading request bodies: size limits (413), a time limit (408), JSON objects only, and a
batch's fields checked one by one, each refusal naming the field (400)."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

from core.api.connections import BODY_TIMEOUT_S
from core.api.errors import ApiError
from core.batch.request import BatchRequest
from core.batch.spec import GridAxis
from core.batch.wildcard_spec import MODES
from core.errors import InputError
from core.inputs import PictureRef
from core.ledger.batch_notices import NoticeChoice
from core.notify.webhook_bodies import checked_webhook

if TYPE_CHECKING:
    from aiohttp import web

MAX_JSON_BYTES = 256 * 1024
INT_LIMIT = 2**63  # what the ledger (SQLite) stores
SCALARS = (str, int, float, bool)  # the values an input may be set to


async def read_body(request: web.Request, limit: int) -> bytes:
    """The body, refused with 413 past ``limit`` bytes (before reading it, when it says so),
    and with 408 when it has not all arrived within ``BODY_TIMEOUT_S`` (a client sending it
    a byte at a time holds a connection no longer)."""
    if request.content_length is not None and request.content_length > limit:
        raise ApiError(413, f"the body is larger than {limit} bytes")
    chunks: list[bytes] = []
    size = 0
    try:
        async with asyncio.timeout(BODY_TIMEOUT_S):
            while size <= limit and (chunk := await request.content.read(limit + 1 - size)):
                chunks.append(chunk)
                size += len(chunk)
    except TimeoutError:
        message = f"the body did not arrive within {BODY_TIMEOUT_S:g} s"
        raise ApiError(408, message, {"Connection": "close"}) from None
    if size > limit:
        raise ApiError(413, f"the body is larger than {limit} bytes")
    return b"".join(chunks)


async def read_json(request: web.Request, limit: int = MAX_JSON_BYTES) -> dict[str, Any]:
    """The body as a JSON object (numbers finite, text valid Unicode), of ``limit`` bytes at
    most (413 past it)."""
    data = await read_body(request, limit)
    try:
        value = json.loads(data, parse_constant=_no_constant)
        if not isinstance(value, dict):
            raise ApiError(400, "the body must be a JSON object")
        _check_text(value, "body")
    except ValueError as exc:
        raise ApiError(400, f"the body is not JSON ({exc})") from None
    except RecursionError:
        raise ApiError(400, "the body is nested too deeply") from None
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _check_text(value: Any, where: str) -> None:
    """Refuse text the ledger cannot store (lone surrogates from \\ud800 escapes)."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise ApiError(400, f"{where} holds text that is not valid Unicode") from None
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_text(key, where)
            _check_text(item, f"{where}.{key}" if where != "body" else key)
    elif isinstance(value, list):
        for item in value:
            _check_text(item, where)


BATCH_FIELDS = frozenset(
    {
        "preset",
        "count",
        "seed_start",
        "seed_step",
        "seeds",
        "random_seeds",
        "seed_inputs",
        "set",
        "grid",
        "zip",
        "wildcards",
        "priority",
        "notify",
        "webhook",
        "webhook_template",
    }
)


def notice_choice(body: dict[str, Any]) -> NoticeChoice:
    """How the batch's end is told, from a ``POST /v1/batches`` body: ``notify`` (false: no
    desktop notification), ``webhook`` (an http(s) address), ``webhook_template``."""
    notify = _optional(body, "notify", bool)
    url = _optional(body, "webhook", str)
    template = _optional(body, "webhook_template", str)
    if url is None:
        if template is not None:
            raise ApiError(400, "webhook_template: goes with webhook")
        return NoticeChoice(desktop=notify is not False)
    try:
        url, template = checked_webhook(url, template or "json")
    except InputError as exc:
        raise ApiError(400, f"webhook: {exc}") from None
    return NoticeChoice(notify is not False, url, template)


def batch_request(body: dict[str, Any], requester: str) -> tuple[str, BatchRequest]:
    """The preset named and the batch asked for by a ``POST /v1/batches`` body."""
    unknown = sorted(set(body) - BATCH_FIELDS)
    if unknown:
        raise ApiError(400, f"{unknown[0]}: not a field of a batch")
    preset = body.get("preset")
    if not isinstance(preset, str) or not preset:
        raise ApiError(400, "preset: the name of a stored preset is required")
    seeds = _optional(body, "seeds", list)
    grid = _optional(body, "grid", dict) or {}
    zips = _optional(body, "zip", list) or []
    wildcards = _optional(body, "wildcards", dict) or {}
    overrides = _optional(body, "set", dict) or {}
    request = BatchRequest(
        count=_int(body, "count"),
        seed_start=_int(body, "seed_start"),
        seed_step=_int(body, "seed_step"),
        seeds=None if seeds is None else tuple(_item_int(v, "seeds") for v in seeds),
        random_seeds=bool(_optional(body, "random_seeds", bool)),
        seed_inputs=tuple(_inputs(_optional(body, "seed_inputs", list) or [], "seed_inputs")),
        overrides={_input(k, "set"): _value(v, f"set.{k}") for k, v in overrides.items()},
        grid=tuple(_axis(key, values) for key, values in grid.items()),
        zips=tuple(_zip(group, f"zip[{i}]") for i, group in enumerate(zips)),
        wildcards={
            _input(k, "wildcards"): _mode(v, f"wildcards.{k}") for k, v in wildcards.items()
        },
        requester=requester,
        priority=_int(body, "priority") or 0,
    )
    return preset, request


def _optional(body: dict[str, Any], name: str, kind: type) -> Any:
    value = body.get(name)
    if value is None:
        return None
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise ApiError(400, f"{name}: must be {_KIND_NAMES[kind]}")
    return value


_KIND_NAMES = {
    list: "a list",
    dict: "an object",
    bool: "true or false",
    int: "an integer",
    str: "a string",
}


def _int(body: dict[str, Any], name: str) -> int | None:
    value = _optional(body, name, int)
    return None if value is None else _item_int(value, name)


def _item_int(value: Any, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ApiError(400, f"{name}: must hold integers")
    if not -INT_LIMIT <= value < INT_LIMIT:
        raise ApiError(400, f"{name}: {value} is out of range")
    return value


def _input(value: Any, name: str) -> str:
    node, dot, field = value.partition(".") if isinstance(value, str) else ("", "", "")
    if not (node and dot and field):
        raise ApiError(400, f"{name}: {value!r} is not of the form NODE.INPUT")
    return str(value)


def _inputs(values: list[Any], name: str) -> list[str]:
    return [_input(value, name) for value in values]


def _scalar(value: Any, name: str) -> Any:
    if not isinstance(value, SCALARS):
        raise ApiError(400, f"{name}: must be a string, a number or true/false")
    if isinstance(value, int) and not isinstance(value, bool):
        _item_int(value, name)
    return value


def _axis(key: str, values: Any) -> GridAxis:
    target = _input(key, "grid")
    if not isinstance(values, list) or not values:
        raise ApiError(400, f"grid.{key}: must be a non-empty list of values")
    return GridAxis(
        target, tuple(_value(v, f"grid.{key}", f"grid.{key}[{i}]") for i, v in enumerate(values))
    )


def _value(value: Any, name: str, item: str | None = None) -> Any:
    """A value an input is set to: a string, a number, true or false, or a picture (an
    object as ``POST /v1/pictures`` answers it; whether the picture store holds it is checked
    with the batch, `core.api.pictures.check_pictures`, and whether the input takes one by the
    composer). ``item`` names the value in a list (``grid.1.image[3]``)."""
    if isinstance(value, dict):
        return sent_picture(value, item or name).to_param()
    return _scalar(value, name)


def sent_picture(value: Any, name: str) -> PictureRef:
    """The picture of a batch body's value ``name``: one sent through the API (its source
    ``api:FILE``), its file a plain name (`picture_file`).

    Raises:
        ApiError: 400 naming ``name``: not such an object, or a source other than the API.
    """
    ref = PictureRef.from_param(value)
    if ref is None:
        raise ApiError(
            400,
            f'{name}: an object must be a picture, {{"picture": {{"sha256", "file", "source", '
            '"size"}}, as POST /v1/pictures answers it',
        )
    picture_file(ref.file, f"{name}.picture.file")
    if ref.source != API_SOURCE + ref.file:
        raise ApiError(
            400,
            f"{name}: source must be {API_SOURCE + ref.file!r}: the API takes only pictures "
            "sent to it (POST /v1/pictures), never a path on this computer",
        )
    return ref


API_SOURCE = "api:"  # a picture sent through the API: its source is "api:" and its file's name
MAX_FILE_NAME = 255  # characters of a picture's file name


def picture_file(name: Any, field: str) -> str:
    """A picture's file name as the API takes it: a plain name (no folder), printable, at most
    ``MAX_FILE_NAME`` characters.

    Raises:
        ApiError: 400 naming ``field``.
    """
    if not isinstance(name, str) or not name.strip():
        raise ApiError(400, f"{field}: the picture file's name is required (?file=NAME.png)")
    bad = (
        len(name) > MAX_FILE_NAME
        or name in (".", "..")
        or any(c in name for c in "/\\")
        or not name.isprintable()
    )
    if bad:
        raise ApiError(
            400,
            f"{field}: {name[:MAX_FILE_NAME]!r} is not a plain file name (no folder, printable, "
            f"at most {MAX_FILE_NAME} characters)",
        )
    return name


def _zip(group: Any, name: str) -> tuple[str, ...]:
    if not isinstance(group, list) or len(group) < 2:
        raise ApiError(400, f"{name}: must be a list of two grid inputs or more")
    return tuple(_input(key, name) for key in group)


def _mode(value: Any, name: str) -> str:
    if value not in MODES:
        raise ApiError(400, f"{name}: must be {' or '.join(repr(mode) for mode in MODES)}")
    return str(value)
