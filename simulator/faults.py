"""Injected faults: failing, hanging or slow jobs, and 500s, drops and delays on HTTP routes;
and the simulator's own control routes under ``/_sim`` that set them."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from simulator.http_layer import json_body, json_response
from simulator.nodes import NodeFailure, failure_traceback

if TYPE_CHECKING:
    from collections.abc import Callable

    from aiohttp import web

    from simulator.config import FaultSettings
    from simulator.model_lists import ModelLists


OOM_MESSAGE = (
    "Allocation on device 0 would exceed allowed memory. (out of memory)\n"
    "Currently allocated     : 21.57 GiB\n"
    "Requested               : 2.50 GiB\n"
    "Device limit            : 23.99 GiB\n"
    "Free (according to CUDA): 0 bytes\n"
    "PyTorch limit (set by user-supplied memory fraction)\n"
    "                        : 17179869184.00 GiB"
)
OOM_TIPS = (
    "This error means you ran out of memory on your GPU.\n\n"
    "TIPS: If the workflow worked before you might have accidentally set the batch_size to a "
    "large number."
)
ERROR_MESSAGE = "simulated failure injected by the Batchline simulator"


@dataclass
class JobFault:
    """What goes wrong in one job: ``oom``, ``error`` or ``hang``, at its heaviest node."""

    kind: str

    def strikes(self, node_id: str, order: list[str], steps: Callable[[str], int | None]) -> bool:
        """True for the first sampler of the run, or its first node if it has no sampler."""
        target = next((n for n in order if steps(n) is not None), order[0] if order else None)
        return node_id == target

    async def fire(self, class_type: str) -> None:
        if self.kind == "hang":
            await asyncio.Event().wait()  # until a restart cancels the worker
        if self.kind == "oom":
            raise NodeFailure(
                "torch.OutOfMemoryError", OOM_MESSAGE, failure_traceback(class_type), OOM_TIPS
            )
        raise NodeFailure("RuntimeError", ERROR_MESSAGE, failure_traceback(class_type))


def take_job_fault(faults: FaultSettings) -> JobFault | None:
    """Consume one pending job fault: hangs first, then out-of-memory, then other errors."""
    if faults.hang_next > 0:
        faults.hang_next -= 1
        return JobFault("hang")
    if faults.fail_oom > 0:
        faults.fail_oom -= 1
        return JobFault("oom")
    if faults.fail_error > 0:
        faults.fail_error -= 1
        return JobFault("error")
    return None


@dataclass
class Hold:
    """Requests to one route wait until ``release()``: a test holds a request open at a moment
    it chooses (``arrived`` is set when the first one comes in)."""

    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    released: asyncio.Event = field(default_factory=asyncio.Event)

    def release(self) -> None:
        self.released.set()


class HttpFaults:
    """Decides, per request and reproducibly, whether to answer 500, drop, or drop later."""

    def __init__(self, settings: FaultSettings, seed: int) -> None:
        self.settings = settings
        self.holds: dict[str, Hold] = {}  # "METHOD /path" -> the hold on it
        self.rng = random.Random(seed)
        self.counts = {
            "error": 0,
            "drop": 0,
            "drop_after_queue": 0,
            "late_queue": 0,
            "late_answer": 0,
            "garbage": 0,
            "trickle": 0,
            "huge": 0,
        }

    def hold_on(self, method: str, path: str) -> Hold | None:
        """The hold on this request's route, while one is set and not released."""
        bare = path[4:] if path.startswith("/api/") else path
        hold = self.holds.get(f"{method} {bare}")
        return hold if hold is not None and not hold.released.is_set() else None

    def applies(self, method: str, path: str) -> bool:
        routes = self.settings.routes
        if not routes:
            return not path.startswith("/_sim")
        bare = path[4:] if path.startswith("/api/") else path
        return f"{method} {bare}" in routes or f"{method} {path}" in routes

    def decide(self, method: str, path: str) -> str | None:
        """``"error"``, ``"drop"``, ``"garbage"``, ``"trickle"``, ``"huge"`` (not for /view)
        or None; for POST /prompt also ``"drop_after_queue"``, ``"late_queue"`` and
        ``"late_answer"``."""
        if not self.applies(method, path):
            return None
        s = self.settings
        draw = self.rng.random()
        is_prompt = method == "POST" and path in ("/prompt", "/api/prompt")
        json_route = not path.endswith("/view")
        for kind, rate in (
            ("error", s.error_rate),
            ("drop", s.drop_rate),
            ("drop_after_queue", s.drop_after_queue_rate if is_prompt else 0.0),
            ("late_queue", s.late_queue_rate if is_prompt else 0.0),
            ("late_answer", s.late_answer_rate if is_prompt else 0.0),
            ("garbage", s.garbage_rate if json_route else 0.0),
            ("trickle", s.trickle_rate if json_route else 0.0),
            ("huge", s.huge_rate if json_route else 0.0),
        ):
            if draw < rate:
                self.counts[kind] += 1
                return kind
            draw -= rate
        return None


# The simulator's own control routes under ``/_sim``: faults, models, restart, socket drops,
# stats.


class Controls(Protocol):
    """What the routes steer: a simulator's faults, models, restart, socket drops and stats."""

    @property
    def faults(self) -> FaultSettings: ...

    def set_faults(self, **changes: Any) -> None: ...

    def set_models(self, models: ModelLists | None) -> None: ...

    async def restart(self) -> None: ...

    async def drop_websockets(self) -> None: ...

    def stats(self) -> dict[str, Any]: ...

    def wipe_input(self) -> int: ...

    def inputs_read(self) -> dict[str, list[str]]: ...

    def upload_stats(self) -> dict[str, Any]: ...


class AdminRoutes:
    """``POST /_sim/faults``, ``POST /_sim/models``, ``POST /_sim/restart``,
    ``POST /_sim/drop_websockets``, ``GET /_sim/stats``, ``POST /_sim/wipe_input``,
    ``GET /_sim/inputs_read``, ``GET /_sim/uploads``: what tests use to steer a simulator in
    another process or thread."""

    def __init__(self, simulator: Controls) -> None:
        self.sim = simulator

    def install(self, app: web.Application) -> None:
        app.router.add_post("/_sim/faults", self.post_faults)
        app.router.add_post("/_sim/models", self.post_models)
        app.router.add_post("/_sim/restart", self.post_restart)
        app.router.add_post("/_sim/drop_websockets", self.post_drop_websockets)
        app.router.add_get("/_sim/stats", self.get_stats)
        app.router.add_post("/_sim/wipe_input", self.post_wipe_input)
        app.router.add_get("/_sim/inputs_read", self.get_inputs_read)
        app.router.add_get("/_sim/uploads", self.get_uploads)

    async def post_faults(self, request: web.Request) -> web.StreamResponse:
        try:
            body: Any = await json_body(request)
            self.sim.set_faults(**body)
        except (ValueError, TypeError) as exc:
            return json_response({"error": str(exc)}, status=400)
        return json_response(self.sim.faults.to_json())

    async def post_models(self, request: web.Request) -> web.StreamResponse:
        """``{"models": {folder: [files]}}`` lists those files from now on; ``{"models": null}``
        the bundled ones."""
        try:
            body: Any = await json_body(request)
            if not isinstance(body, dict) or "models" not in body:
                raise ValueError('the body must be {"models": {folder: [files]} or null}')
            self.sim.set_models(body["models"])
        except (ValueError, TypeError, AttributeError) as exc:
            return json_response({"error": str(exc)}, status=400)
        return json_response(self.sim.stats())

    async def post_restart(self, request: web.Request) -> web.StreamResponse:
        await self.sim.restart()
        return json_response(self.sim.stats())

    async def post_drop_websockets(self, request: web.Request) -> web.StreamResponse:
        await self.sim.drop_websockets()
        return json_response(self.sim.stats())

    async def get_stats(self, request: web.Request) -> web.StreamResponse:
        return json_response(self.sim.stats())

    async def post_wipe_input(self, request: web.Request) -> web.StreamResponse:
        """Empty the input folder: ``{"removed": entries}``."""
        return json_response({"removed": self.sim.wipe_input()})

    async def get_inputs_read(self, request: web.Request) -> web.StreamResponse:
        """``{prompt_id: [LoadImage value, ...]}``."""
        return json_response(self.sim.inputs_read())

    async def get_uploads(self, request: web.Request) -> web.StreamResponse:
        """``{"uploads": requests received, "names": {"subfolder/name": requests}}``."""
        return json_response(self.sim.upload_stats())
