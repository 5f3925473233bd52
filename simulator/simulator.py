"""The simulated ComfyUI server: an aiohttp app over `ServerState`, a worker, fault controls."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import dataclasses
import ipaddress
import logging
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import web

from simulator.config import FaultSettings, SimulatorConfig
from simulator.execution import JobRun
from simulator.faults import AdminRoutes, Hold, HttpFaults
from simulator.http_layer import DualRoutes, auth_middleware, fault_middleware
from simulator.input_folder import wipe
from simulator.jobs_api import JobsApi
from simulator.routes import ComfyRoutes, ViewRoute
from simulator.sockets import WebSocketRoute
from simulator.state import Folders, JobTimes, ServerState, now_ms
from simulator.uploads import UploadRoute

if TYPE_CHECKING:
    from simulator.model_lists import ModelLists

log = logging.getLogger(__name__)

FAULT_FIELDS = frozenset(f.name for f in dataclasses.fields(FaultSettings))


def check_loopback(host: str) -> None:
    """The simulator never listens beyond this machine."""
    if host == "localhost":
        return
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise ValueError(f"the simulator only listens on loopback, not {host!r}")


class Simulator:
    """A faithful stand-in for a ComfyUI server on loopback, with fault injection.

    ``await start()`` returns the base URL; ``stop()`` closes everything. Faults can be set
    in-process (``set_faults``, ``fail_next``, ``hang_next``, ``restart``,
    ``drop_websockets``) or over HTTP under ``/_sim``.
    """

    def __init__(self, config: SimulatorConfig | None = None) -> None:
        self.config = copy.deepcopy(config) if config is not None else SimulatorConfig()
        self.folders = self._make_folders()
        self.state = ServerState(self.config, self.folders)
        self.http_faults = HttpFaults(self.config.faults, self.config.seed)
        self.uploads = UploadRoute(self.folders)
        self._runner: web.AppRunner | None = None
        self._worker: asyncio.Task[None] | None = None
        self._url: str | None = None

    def _make_folders(self) -> Folders:
        output = self.config.resolved_output_dir()
        output.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix="batchline-sim-"))
        (scratch / "input").mkdir()
        (scratch / "temp").mkdir()
        self._scratch = scratch
        return Folders(output=output, input=scratch / "input", temp=scratch / "temp")

    # --- lifecycle --------------------------------------------------------------------------

    @property
    def url(self) -> str:
        if self._url is None:
            raise RuntimeError("the simulator is not started")
        return self._url

    @property
    def faults(self) -> FaultSettings:
        return self.config.faults

    @property
    def output_dir(self) -> Path:
        return self.folders.output

    @property
    def input_dir(self) -> Path:
        return self.folders.input

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> str:
        check_loopback(host)
        self._runner = web.AppRunner(self._build_app(), handle_signals=False, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        await site.start()
        bound_port = self._runner.addresses[0][1]
        self._url = f"http://{host}:{bound_port}"
        self.state.hub.start()
        self._worker = asyncio.create_task(self._work())
        return self._url

    def _build_app(self) -> web.Application:
        middlewares = [fault_middleware(self.http_faults)]
        if self.config.token:
            middlewares.insert(0, auth_middleware(self.config.token))
        app = web.Application(middlewares=middlewares, client_max_size=self.config.max_upload_size)
        routes = DualRoutes()
        ComfyRoutes(self.state).register(routes)
        view = ViewRoute(self.folders).get
        routes.add("GET", "/view", view)
        routes.add("HEAD", "/view", view)  # aiohttp's GET routes answer HEAD in ComfyUI
        routes.add("POST", "/upload/image", self.uploads.post)
        routes.add("GET", "/ws", WebSocketRoute(self.state).handle)
        if self.config.has_jobs_api:
            JobsApi(self.state).register(routes)
        routes.install(app)
        AdminRoutes(self).install(app)
        app.router.add_get("/{path:.*}", _no_such_file)
        return app

    async def stop(self) -> None:
        await self._stop_worker()
        await self.state.hub.stop()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        shutil.rmtree(self._scratch, ignore_errors=True)
        self._url = None

    async def __aenter__(self) -> Simulator:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # --- the worker -------------------------------------------------------------------------

    async def _work(self) -> None:
        state = self.state
        while True:
            item = await state.queue.get()
            state.times.setdefault(item.prompt_id, JobTimes()).start = now_ms()
            run = JobRun(state, item)
            try:
                await run.run()
            except Exception:  # a simulator bug must not kill the worker
                log.exception("simulated job %s crashed", item.prompt_id)
            state.times[item.prompt_id].end = now_ms()
            state.queue.task_done()
            state.running_client = None
            if run.client_id is not None:
                state.hub.send(
                    "executing", {"node": None, "prompt_id": item.prompt_id}, run.client_id
                )

    async def _stop_worker(self) -> None:
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._worker
            self._worker = None

    # --- faults and controls ----------------------------------------------------------------

    def set_faults(self, **changes: Any) -> None:
        """Change fault settings by name (see `FaultSettings`); unknown names raise TypeError."""
        unknown = set(changes) - FAULT_FIELDS
        if unknown:
            raise TypeError(f"unknown fault settings: {', '.join(sorted(unknown))}")
        for name, value in changes.items():
            setattr(self.faults, name, list(value) if name == "routes" else value)

    def fail_next(self, count: int = 1, kind: str = "oom") -> None:
        """Make the next ``count`` jobs fail: ``kind`` is ``"oom"`` or ``"error"``."""
        if kind not in ("oom", "error"):
            raise ValueError(f"unknown failure kind {kind!r}")
        if kind == "oom":
            self.faults.fail_oom += count
        else:
            self.faults.fail_error += count

    def hold(self, route: str) -> Hold:
        """Hold every request to ``route`` (``"GET /queue"``) until the hold is released."""
        hold = self.http_faults.holds[route] = Hold()
        return hold

    def hang_next(self, count: int = 1) -> None:
        """Make the next ``count`` jobs hang forever (until a restart)."""
        self.faults.hang_next += count

    async def drop_websockets(self) -> None:
        """Close every WebSocket connection (clients must reconnect)."""
        await self.state.hub.close_all()

    async def restart(self) -> None:
        """Forget queue, history, cache and counter; close sockets; the running job vanishes."""
        await self._stop_worker()
        await self.state.hub.close_all()
        self.state.restart()
        self.state.restarts += 1
        shutil.rmtree(self.folders.temp, ignore_errors=True)
        self.folders.temp.mkdir(parents=True, exist_ok=True)
        if not self.config.keep_input:
            self.wipe_input()
        self._worker = asyncio.create_task(self._work())

    def set_models(self, models: ModelLists | None) -> None:
        """List these model files from now on (see `SimulatorConfig.models`; None: the bundled
        lists): a test "installs" a model, or sets the lists a restart comes back with."""
        self.state.set_models(models)

    def wipe_input(self) -> int:
        """Empty the input folder (uploaded pictures), as a new server's is; returns how many
        entries went."""
        return wipe(self.folders.input)

    def inputs_read(self) -> dict[str, list[str]]:
        """Each prompt's LoadImage values, as its runs used them (survives restarts)."""
        return {prompt_id: list(values) for prompt_id, values in self.state.inputs_read.items()}

    def upload_stats(self) -> dict[str, Any]:
        """``{"uploads": requests received, "names": {"subfolder/name": requests}}``."""
        return self.uploads.stats()

    def execution_count(self, prompt_id: str) -> int:
        """How many times execution of ``prompt_id`` started (survives restarts)."""
        return self.state.execution_counts[prompt_id]

    def stats(self) -> dict[str, Any]:
        state = self.state
        running = state.queue.running
        return {
            "version": self.config.version,
            "restarts": state.restarts,
            "queue_counter": state.queue.counter,
            "queue_remaining": state.queue.remaining,
            "running": running.prompt_id if running is not None else None,
            "history_size": len(state.history),
            "websockets": len(state.hub.sockets),
            "execution_counts": dict(state.execution_counts),
            "models": state.config.models,
            "loaded_model": state.loaded_model,
            "model_loads": dict(state.model_loads),
            "success_counts": dict(state.success_counts),
            "successes_wiped": dict(state.successes_wiped),
            "http_faults_injected": dict(self.http_faults.counts),
            "uploads": self.uploads.count,
            "faults": self.faults.to_json(),
        }


async def _no_such_file(request: web.Request) -> web.StreamResponse:
    """ComfyUI's last route is the frontend's static root (GET only): an unknown path answers
    404 to GET and 405 to other methods (an older server's ``POST /api/jobs/{id}/cancel``)."""
    raise web.HTTPNotFound()
