"""ComfyUI's HTTP routes, answered from the simulator's state (never canned bodies): queue,
prompt, interrupt, history, information (``/system_stats``) and ``/view``'s files."""

from __future__ import annotations

import asyncio
import io
import os
import re
import sys
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import web
from PIL import Image

from simulator.http_layer import LATE_QUEUE, empty_ok, json_body, json_response, server_error
from simulator.input_folder import with_input_choices
from simulator.model_lists import FOLDER_NAMES, folder_files
from simulator.sockets import features
from simulator.state import JobTimes, QueueItem, ServerState, now_ms

if TYPE_CHECKING:
    from simulator.config import SimulatorConfig
    from simulator.http_layer import DualRoutes
    from simulator.state import Folders


CANONICAL_UUID = r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"


class ComfyRoutes:
    """Handlers for the queue, prompt, interrupt, history, info and free routes."""

    def __init__(self, state: ServerState) -> None:
        self.state = state

    def register(self, routes: DualRoutes) -> None:
        routes.add("POST", "/prompt", self.post_prompt)
        routes.add("GET", "/prompt", self.get_prompt)
        routes.add("GET", "/queue", self.get_queue)
        routes.add("POST", "/queue", self.post_queue)
        routes.add("POST", "/interrupt", self.post_interrupt)
        routes.add("GET", "/history", self.get_history)
        routes.add("GET", "/history/{prompt_id}", self.get_history_item)
        routes.add("POST", "/history", self.post_history)
        routes.add("GET", "/system_stats", self.get_system_stats)
        routes.add("GET", "/object_info", self.get_object_info)
        routes.add("GET", "/object_info/{node_class}", self.get_object_info_class)
        routes.add("GET", "/features", self.get_features)
        routes.add("GET", "/embeddings", self.get_embeddings)
        routes.add("GET", "/models", self.get_model_folders)
        routes.add("GET", "/models/{folder}", self.get_model_files)
        routes.add("POST", "/free", self.post_free)

    # --- /prompt ------------------------------------------------------------------------

    async def post_prompt(self, request: web.Request) -> web.StreamResponse:
        """ComfyUI's order: read the body, validate, queue, then answer (a prompt can reach the
        queue after its client gave up waiting)."""
        try:
            return await self._submit(await json_body(request), request.get(LATE_QUEUE, 0.0))
        except (ValueError, TypeError, KeyError, AttributeError, IndexError):
            return server_error()

    async def _submit(self, body: Any, queue_after: float) -> web.StreamResponse:
        if not isinstance(body, dict):
            self.state.queue.next_number(front=False)  # ComfyUI advances, then fails
            return server_error()
        if "number" in body:
            number: float = float(body["number"])
        else:
            number = self.state.queue.next_number(front=bool(body.get("front")))
        if "prompt" not in body:
            no_prompt = _error("no_prompt", "No prompt provided", "No prompt provided")
            return json_response({"error": no_prompt, "node_errors": {}}, status=400)
        prompt = body["prompt"]
        if not isinstance(prompt, dict):
            raise TypeError("prompt must be an object")
        if "prompt_id" in body and not self._prompt_id_ok(body["prompt_id"]):
            bad = _error(
                "invalid_prompt_id", "Invalid prompt_id format", "prompt_id must be a UUID"
            )
            return json_response({"error": bad, "node_errors": {}}, status=400)
        prompt_id = str(body.get("prompt_id", uuid.uuid4()))
        verdict = self.state.validator.validate(prompt, body.get("partial_execution_targets"))
        extra_data = self._extra_data(body)
        if verdict.error is not None:
            return json_response({"error": verdict.error, "node_errors": verdict.node_errors}, 400)
        if queue_after > 0:
            await asyncio.sleep(queue_after)  # validation took long (an injected fault)
        item = QueueItem(number, prompt_id, prompt, extra_data, verdict.outputs)
        self.state.times[prompt_id] = JobTimes()
        self.state.queue.put(item)
        answer = {"prompt_id": prompt_id, "number": number, "node_errors": verdict.node_errors}
        return json_response(answer)

    def _prompt_id_ok(self, value: Any) -> bool:
        if not self.state.config.has_jobs_api:
            return True
        return isinstance(value, str) and re.fullmatch(CANONICAL_UUID, value) is not None

    def _extra_data(self, body: dict[str, Any]) -> dict[str, Any]:
        extra = body.get("extra_data", {})
        if not isinstance(extra, dict):
            raise TypeError("extra_data must be an object")
        if "client_id" in body:
            extra["client_id"] = body["client_id"]
        if self.state.config.has_jobs_api:
            extra["create_time"] = now_ms()
        return extra

    async def get_prompt(self, request: web.Request) -> web.StreamResponse:
        return json_response({"exec_info": {"queue_remaining": self.state.queue.remaining}})

    # --- /queue and /interrupt ----------------------------------------------------------

    async def get_queue(self, request: web.Request) -> web.StreamResponse:
        queue = self.state.queue
        running = [queue.running.to_json()] if queue.running is not None else []
        pending = [item.to_json() for item in queue.pending()]
        return json_response({"queue_running": running, "queue_pending": pending})

    async def post_queue(self, request: web.Request) -> web.StreamResponse:
        try:
            body = await json_body(request)
            if body.get("clear"):
                self.state.queue.clear()
            for prompt_id in body.get("delete", []) if "delete" in body else []:
                self.state.queue.delete(prompt_id)
        except (ValueError, TypeError, AttributeError):
            return server_error()
        return empty_ok()

    async def post_interrupt(self, request: web.Request) -> web.StreamResponse:
        try:
            body = await json_body(request)
        except ValueError:
            body = {}
        prompt_id = body.get("prompt_id") if isinstance(body, dict) else None
        self.state.interrupt(str(prompt_id) if prompt_id else None)
        return empty_ok()

    # --- /history -----------------------------------------------------------------------

    async def get_history(self, request: web.Request) -> web.StreamResponse:
        query = request.rel_url.query
        try:
            max_items = int(query["max_items"]) if "max_items" in query else None
            offset = int(query["offset"]) if "offset" in query else None
        except ValueError:
            return server_error()
        return json_response(self.state.history.window(max_items, offset))

    async def get_history_item(self, request: web.Request) -> web.StreamResponse:
        prompt_id = request.match_info["prompt_id"]
        entry = self.state.history.get(prompt_id)
        return json_response({prompt_id: entry} if entry is not None else {})

    async def post_history(self, request: web.Request) -> web.StreamResponse:
        try:
            body = await json_body(request)
            if body.get("clear"):
                self.state.history.clear()
            for prompt_id in body.get("delete", []) if "delete" in body else []:
                self.state.history.delete(prompt_id)
        except (ValueError, TypeError, AttributeError):
            return server_error()
        return empty_ok()

    # --- information --------------------------------------------------------------------

    async def get_system_stats(self, request: web.Request) -> web.StreamResponse:
        return json_response(system_stats(self.state.config, request.url.port))

    def _object_info(self) -> dict[str, Any]:
        """The catalogue with LoadImage's choices listing the input folder as it is now."""
        return with_input_choices(self.state.object_info, self.state.folders.input)

    async def get_object_info(self, request: web.Request) -> web.StreamResponse:
        return json_response(self._object_info())

    async def get_object_info_class(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["node_class"]
        info = self._object_info().get(name)
        return json_response({name: info} if info is not None else {})

    async def get_features(self, request: web.Request) -> web.StreamResponse:
        return json_response(features())

    async def get_embeddings(self, request: web.Request) -> web.StreamResponse:
        return json_response([])

    async def get_model_folders(self, request: web.Request) -> web.StreamResponse:
        return json_response(list(FOLDER_NAMES))

    async def get_model_files(self, request: web.Request) -> web.StreamResponse:
        folder = request.match_info["folder"]
        if folder not in FOLDER_NAMES:
            return web.Response(status=404)
        return json_response(folder_files(self.state.object_info, folder))

    async def post_free(self, request: web.Request) -> web.StreamResponse:
        try:
            body = await json_body(request)
        except ValueError:
            return server_error()
        if isinstance(body, dict) and body.get("free_memory"):
            self.state.cache.clear()
        if isinstance(body, dict) and body.get("unload_models"):
            self.state.loaded_model = None
        return empty_ok()


def _error(kind: str, message: str, details: str) -> dict[str, Any]:
    return {"type": kind, "message": message, "details": details, "extra_info": {}}


# The body of ``/system_stats`` for the simulated server (``/features``: sockets.features).


def system_stats(config: SimulatorConfig, port: int | None) -> dict[str, Any]:
    ram_total = config.ram_bytes
    ram_free = int(ram_total * 0.95)
    system = {
        "os": sys.platform if config.has_jobs_api else os.name,
        "ram_total": ram_total,
        "ram_free": ram_free,
        "comfyui_version": config.version,
        "required_frontend_version": "1.27.10",
        "installed_templates_version": "0.1.95",
        "required_templates_version": "0.1.95",
        "python_version": sys.version,
        "pytorch_version": "none (Batchline simulator)",
        "embedded_python": False,
        "argv": ["batchline", "simulate", "--port", str(port or 0)],
    }
    device = {
        "name": "cpu",
        "type": "cpu",
        "index": None,
        "vram_total": ram_total,
        "vram_free": ram_free,
        "torch_vram_total": ram_total,
        "torch_vram_free": ram_free,
    }
    return {"system": system, "devices": [device]}


# ``GET /view``: output, input and temp files with ComfyUI's 400/403/404 rules.

ANNOTATIONS = {" [output]": "output", " [input]": "input", " [temp]": "temp"}


def _folder(folders: Folders, kind: str) -> str | None:
    folder = {"output": folders.output, "input": folders.input, "temp": folders.temp}.get(kind)
    return os.path.abspath(folder) if folder is not None else None


def _annotated(filename: str) -> tuple[str, str | None]:
    for suffix, kind in ANNOTATIONS.items():
        if filename.endswith(suffix):
            return filename[: -len(suffix)], kind
    return filename, None


def resolve(folders: Folders, query: dict[str, str]) -> Path | int:
    """The file a /view query names, or the status code ComfyUI answers instead."""
    if "filename" not in query:
        return 404
    filename, kind = _annotated(query["filename"])
    if not filename or filename[0] == "/" or ".." in filename:
        return 400
    base = _folder(folders, kind or query.get("type", "output"))
    if base is None:
        return 400
    if "subfolder" in query:
        full = os.path.join(base, query["subfolder"])
        if os.path.commonpath((os.path.abspath(full), base)) != base:
            return 403
        base = full
    file = Path(base) / os.path.basename(filename)
    return file if file.is_file() else 404


class ViewRoute:
    """Serves stored files, optionally re-encoded (``preview``) or reduced to a channel."""

    def __init__(self, folders: Folders) -> None:
        self.folders = folders

    async def get(self, request: web.Request) -> web.StreamResponse:
        query = dict(request.rel_url.query)
        found = resolve(self.folders, query)
        if isinstance(found, int):
            return web.Response(status=found)
        if "preview" in query or query.get("channel") in ("rgb", "a"):
            return _converted(found, query)
        headers = {"Content-Disposition": f'filename="{found.name}"'}
        return web.FileResponse(found, headers=headers)


def _converted(file: Path, query: dict[str, str]) -> web.Response:
    with Image.open(file) as opened:
        image = opened.convert("RGBA")
    channel = query.get("channel", "rgba")
    if channel == "rgb":
        image = image.convert("RGB")
    elif channel == "a":
        image = image.getchannel("A")
    fmt, _, quality = query.get("preview", "png;90").partition(";")
    fmt = fmt if fmt in ("webp", "jpeg") else "png"
    if fmt == "jpeg" and image.mode == "RGBA":
        image = image.convert("RGB")
    buffer = io.BytesIO()
    image.save(buffer, format=fmt, quality=int(quality) if quality.isdigit() else 90)
    return web.Response(body=buffer.getvalue(), content_type=f"image/{fmt}")
