"""``POST /v1/comfyui/workflows``: a workflow sent from ComfyUI's editor (the Send to Batchline
extension), stored as the requester's preset, and the one route a web page may call (CORS).

The pages allowed are the origins (scheme://host:port) of the ComfyUI servers in the settings
(``server.url``) and those in ``api.allowed_origins``, read again after ``ORIGINS_CACHE_S`` so a
change in the settings holds without a restart. A preflight from an allowed page is answered
with the least it needs (Chromium's private-network one too); any other page gets no CORS
header at all (its preflight: 403). The token is still required on the POST."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from aiohttp import web

from core.api.auth import LEDGER, requester_of
from core.api.bodies import read_json
from core.api.errors import ApiError, error_response
from core.api.reads import off_the_loop
from core.errors import InputError
from core.ledger import PresetOutcome
from core.ledger.arrivals import Arrival, record_arrival
from core.ledger.settings import ALLOWED_ORIGINS, DEFAULT_SERVER, SERVER, server_list
from core.ledger.windows import windows_open
from core.presets import preset_from_api
from core.presets.checks import check_name
from core.presets.storing import preset_content

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from core.ledger import Ledger
    from core.ledger.stores import Placed

ROUTE = "/v1/comfyui/workflows"
MAX_SEND_BYTES = 16 * 1024 * 1024  # an editor graph and its prompt; big ones are a few MB
MAX_NAME = 200
ORIGINS_CACHE_S = 2.0
_OUTCOMES = {
    PresetOutcome.created: "created",
    PresetOutcome.replaced: "updated",
    PresetOutcome.unchanged: "unchanged",
}


def origin_of(address: str) -> str | None:
    """``scheme://host[:port]`` of an address as a browser sends it in Origin (lower case, the
    scheme's default port left out); None when it is not an http(s) address."""
    try:
        parts = urlsplit(address.strip())
        port = parts.port
    except ValueError:
        return None
    scheme, host = parts.scheme.lower(), (parts.hostname or "")
    if scheme not in ("http", "https") or not host:
        return None
    shown = f"[{host}]" if ":" in host else host
    if port is None or port == {"http": 80, "https": 443}[scheme]:
        return f"{scheme}://{shown}"
    return f"{scheme}://{shown}:{port}"


def allowed_origins(ledger: Ledger) -> frozenset[str]:
    """The ComfyUI servers' origins in the settings, and those added explicitly."""
    texts = (server_list(SERVER.get(ledger)) or [DEFAULT_SERVER]) + server_list(
        ALLOWED_ORIGINS.get(ledger)
    )
    return frozenset(o for o in map(origin_of, texts) if o)


@dataclass
class _OriginCache:
    origins: frozenset[str] = frozenset()
    read_at: float = field(default=-ORIGINS_CACHE_S)


_CACHE: web.AppKey[_OriginCache] = web.AppKey("origin_cache")


def add_comfyui_route(app: web.Application) -> None:
    app[_CACHE] = _OriginCache()
    app.router.add_post(ROUTE, send_workflow)


async def _allowed(request: web.Request) -> frozenset[str]:
    cache = request.app[_CACHE]
    if time.monotonic() - cache.read_at >= ORIGINS_CACHE_S:
        cache.origins = await off_the_loop(request, partial(allowed_origins, request.app[LEDGER]))
        cache.read_at = time.monotonic()
    return cache.origins


def _cors_headers(origin: str) -> dict[str, str]:
    return {"Access-Control-Allow-Origin": origin, "Vary": "Origin"}


@web.middleware
async def comfyui_cors(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """CORS on `ROUTE` only, for allowed origins only; the preflight needs no token."""
    if request.path != ROUTE:
        return await handler(request)
    origin = request.headers.get("Origin")
    allowed = (
        origin is not None and origin_of(origin) == origin and origin in await _allowed(request)
    )
    if request.method == "OPTIONS":
        if not allowed or origin is None:
            return error_response(403, f"the page {origin or '(none)'} may not send here")
        headers = {
            **_cors_headers(origin),
            "Access-Control-Allow-Methods": "POST",
            "Access-Control-Allow-Headers": "Authorization, Content-Type",
            "Access-Control-Max-Age": "600",
        }
        if request.headers.get("Access-Control-Request-Private-Network", "").lower() == "true":
            headers["Access-Control-Allow-Private-Network"] = "true"
        return web.Response(status=204, headers=headers)
    if origin is not None and not allowed:
        return error_response(
            403,
            f"the page {origin} may not send here: add it in Batchline's Settings (a server, "
            "or Other pages) or with `batchline origins add`",
        )
    response = await handler(request)
    if origin is not None:
        response.headers.update(_cors_headers(origin))
    return response


@dataclass(frozen=True)
class _Sent:
    name: str
    workflow: dict[str, Any]
    prompt: dict[str, Any]
    comfyui: str


def _sent(body: dict[str, Any]) -> _Sent:
    name = body.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ApiError(400, "name: the workflow's name is required (text)")
    name = name.strip().removesuffix(".json").strip() or "Sent from ComfyUI"
    if len(name) > MAX_NAME:
        raise ApiError(400, f"name: at most {MAX_NAME} characters")
    workflow, prompt = body.get("workflow"), body.get("prompt")
    if not isinstance(workflow, dict) or not isinstance(workflow.get("nodes"), list):
        raise ApiError(400, "workflow: must be the editor's workflow (an object with nodes)")
    if not isinstance(prompt, dict) or not prompt:
        raise ApiError(400, "prompt: must be the API prompt (an object of nodes by id)")
    comfyui = body.get("comfyui", "")
    if not isinstance(comfyui, str) or len(comfyui) > 2000:
        raise ApiError(400, "comfyui: must be the address of the ComfyUI page (text)")
    unknown = sorted(set(body) - {"name", "workflow", "prompt", "comfyui"})
    if unknown:
        raise ApiError(400, f"{unknown[0]}: not a field of this route")
    return _Sent(name, workflow, prompt, comfyui)


async def send_workflow(request: web.Request) -> web.Response:
    sent = _sent(await read_json(request, MAX_SEND_BYTES))
    requester, ledger = requester_of(request), request.app[LEDGER]

    def store() -> dict[str, Any]:
        check_name(sent.name, "rename the workflow in ComfyUI")
        try:
            preset = preset_from_api(sent.prompt, Path(sent.name))
        except InputError as exc:
            raise ApiError(400, f"prompt: {exc}") from None
        preset = replace(preset, editor_workflow=sent.workflow)
        content = replace(preset_content(preset, None), origin=sent.comfyui, source=sent.comfyui)
        placed = ledger.presets_for(requester).add_own(sent.name, content)
        record_arrival(
            ledger,
            Arrival(placed.name, placed.version, requester, sent.comfyui, ledger.now()),
        )
        return {
            "preset": placed.name,
            "version": placed.version,
            "outcome": _OUTCOMES[placed.outcome],
            "message": _message(placed),
            "window": windows_open(ledger.folder),
        }

    body = await off_the_loop(request, store)
    return web.json_response(body, status=201 if body["outcome"] == "created" else 200)


def _message(placed: Placed) -> str:
    """What the editor tells the artist: "Sent to Batchline as 'Fox portrait'", with the
    version when it updated one ("… (version 2)"), or that it was there already."""
    if placed.outcome is PresetOutcome.unchanged:
        return f"Already in Batchline as {placed.name!r} (version {placed.version})"
    version = f" (version {placed.version})" if placed.version > 1 else ""
    return f"Sent to Batchline as {placed.name!r}{version}"
