"""One run of the window over one backend (real ComfyUI or the demo simulator), and the app loop."""

from __future__ import annotations

import asyncio
import gc
import logging
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import httpx
from PySide6.QtCore import QObject, Slot

from core.comfy import BearerAuth, ComfyClient, server_address
from core.controller import Controller
from core.errors import BatchlineError, InputError
from core.ledger import Ledger
from core.paths import data_dir
from core.settings import DEFAULT_SERVER, SERVER, Settings, server_list
from core.token_store import load_token
from desktop.demo import DEMO_FOLDER, load_sample_presets, start_simulator
from desktop.logs import install_excepthook
from desktop.main_thread_gc import MainThreadCollector
from desktop.main_window import MainWindow
from desktop.settings_dialog import SettingsDialog
from desktop.tasks import BackgroundTasks

if TYPE_CHECKING:
    import argparse
    from pathlib import Path

    from PySide6.QtWidgets import QApplication

    from core.simulator.thread import SimulatorThread
    from desktop.controller_port import ControllerPort

log = logging.getLogger(__name__)
PROBE_TIMEOUT = httpx.Timeout(2.0)


@dataclass
class SessionOptions:
    """What the command line asked for."""

    data_dir: Path
    server: str | None = None
    demo: bool = False
    verbose: bool = False
    demo_job_seconds: float = 4.0

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> SessionOptions:
        return cls(
            data_dir=data_dir(getattr(args, "data_dir", None)),
            server=getattr(args, "server", None),
            demo=bool(getattr(args, "demo", False)),
            verbose=bool(getattr(args, "verbose", False)),
        )


async def answers(server: str) -> bool:
    """Whether a ComfyUI answers at ``server``."""
    try:
        async with ComfyClient(server, timeout=PROBE_TIMEOUT) as client:
            await client.system_stats()
    except (BatchlineError, ValueError):
        return False
    return True


def server_configured(ledger: Ledger) -> bool:
    """Whether the ledger is the artist's: a server was set, or it holds jobs (made with the
    default server, maybe just not running now), never a reason to fall back to the demo."""
    return bool(SERVER.get(ledger)) or ledger.latest_seq() > 0


async def wants_demo(
    options: SessionOptions, configured: bool, default_server: str = DEFAULT_SERVER
) -> bool:
    """Demo when asked, or when no server was ever configured and none answers by default."""
    if options.demo:
        return True
    if options.server or configured:
        return False
    return not await answers(default_server)


def make_controller(
    ledger: Ledger, clients: list[ComfyClient], settings: Settings
) -> ControllerPort:
    config, output = settings.controller, settings.output_folder
    return Controller(ledger, clients, config=config, output_dir=output)


def make_clients(servers: list[str], demo: bool) -> list[ComfyClient]:
    """A client per server, each with its own token (none for the demo simulator).

    Raises:
        ValueError: one of them is not a server address (checked before any client exists).
    """
    urls = [server_address(server) for server in servers]
    tokens = [None if demo else load_token(url) for url in urls]
    return [
        ComfyClient(url, auth=BearerAuth(token) if token else None)
        for url, token in zip(urls, tokens, strict=True)
    ]


class Session(QObject):
    """A window, its ledger, client and controller (and the simulator in demo mode).

    ``finished`` resolves to "quit" or "restart" (settings changed, or leaving the demo).
    """

    def __init__(self, options: SessionOptions) -> None:
        super().__init__()
        self.options = options
        self.simulator: SimulatorThread | None = None
        self.ledger: Ledger | None = None
        self.clients: list[ComfyClient] = []
        self.controller: ControllerPort | None = None
        self.window: MainWindow | None = None
        self.tasks = BackgroundTasks(self)
        self.finished: asyncio.Future[str] = asyncio.get_event_loop().create_future()

    async def open(self) -> MainWindow:
        real = Ledger(self.options.data_dir)
        settings = Settings.load(real)
        demo = await wants_demo(self.options, server_configured(real))
        if demo:
            real.close()
            self.ledger, settings = self._open_demo()
        else:
            self.ledger = real
        servers = server_list(self.options.server or "") if not demo else []
        try:
            self.clients = make_clients(servers or settings.servers, demo)
        except ValueError as exc:  # a hand-edited setting or --server: say which, in one line
            raise InputError(str(exc)) from None
        self.controller = make_controller(self.ledger, self.clients, settings)
        self.window = self._window(demo, settings)
        self.tasks.start(self.controller.start(), "controller start")
        return self.window

    def _open_demo(self) -> tuple[Ledger, Settings]:
        folder = self.options.data_dir / DEMO_FOLDER
        ledger = Ledger(folder)
        load_sample_presets(ledger)
        self.simulator = start_simulator(folder, self.options.demo_job_seconds)
        settings = Settings.load(ledger)
        output = settings.output_dir or folder / "outputs"  # demo pictures stay in the demo folder
        return ledger, replace(settings, server=self.simulator.url, output_dir=output)

    def _window(self, demo: bool, settings: Settings) -> MainWindow:
        assert self.ledger is not None
        assert self.controller is not None
        output = settings.output_folder
        window = MainWindow(self.ledger, self.controller, demo=demo, output_dir=output)
        window.fit_to_screen()
        window.connect_real_requested.connect(self._leave_demo)
        window.settings_requested.connect(self._settings)
        self.tasks.failed.connect(window.show_error)
        install_excepthook(window.show_error)
        window.model.loaded.connect(self._freeze_heap)
        window.start()
        window.show()
        window.closing.connect(self._quit)
        return window

    @Slot()
    def _settings(self) -> None:
        """Settings of the real ledger (in demo mode too: the demo ledger has none to edit)."""
        if self.window is not None and self.window.demo:
            self._leave_demo()
        elif self.ledger is not None and SettingsDialog.ask(self.ledger, self.window):
            self._finish("restart")

    @Slot()
    def _leave_demo(self) -> None:
        with Ledger(self.options.data_dir) as real:
            if SettingsDialog.ask(real, self.window) is not None:
                self.options.demo = False
                self._finish("restart")

    @Slot()
    def _freeze_heap(self) -> None:
        """Keep the loaded job records out of the garbage collector's full passes.

        With 100,000 jobs in memory a full collection takes ~40 ms, a visible stall; the
        records live as long as the window, so exempting them loses nothing.
        """
        gc.collect()
        gc.freeze()

    @Slot()
    def _quit(self) -> None:
        self._finish("quit")

    def _finish(self, how: str) -> None:
        if not self.finished.done():
            self.finished.set_result(how)

    async def close(self) -> None:
        """Stop the controller cleanly (jobs in ComfyUI keep running), then everything else."""
        if self.controller is not None:
            try:
                await self.controller.stop()
            except BatchlineError as exc:
                log.warning("controller stop: %s", exc)
        await self.tasks.cancel_all()
        gc.unfreeze()
        if self.window is not None:
            self.window.closing.disconnect(self._quit)
            self.window.close()
            self.window.deleteLater()
        for client in self.clients:
            await client.aclose()
        if self.ledger is not None:
            self.ledger.close()
        if self.simulator is not None:
            await asyncio.to_thread(self.simulator.stop)


async def run_app(app: QApplication, options: SessionOptions) -> int:
    """Open sessions until the artist quits (a settings change reopens one)."""
    collector = MainThreadCollector(parent=app)
    collector.start()
    try:
        return await _run_sessions(app, options)
    finally:
        collector.stop()


async def _run_sessions(app: QApplication, options: SessionOptions) -> int:
    quitting = asyncio.Event()
    app.aboutToQuit.connect(quitting.set)
    while True:
        session = Session(options)
        try:
            await session.open()
        except BatchlineError as exc:
            log.error("cannot start: %s", exc)
            await session.close()
            print(f"batchline gui: {exc}")
            return 1
        quit_wait: asyncio.Future[bool] = asyncio.ensure_future(quitting.wait())
        waits: list[asyncio.Future[Any]] = [session.finished, quit_wait]
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        quit_wait.cancel()
        how = session.finished.result() if session.finished.done() else "quit"
        await session.close()
        if how != "restart":
            return 0
