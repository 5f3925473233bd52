"""One run of the window over one ledger (the artist's or the demo's) and its background
controller, and the app loop."""

from __future__ import annotations

import asyncio
import gc
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Slot

from core.comfy import server_address
from core.controller.client import ControllerClient
from core.controller.published import APP
from core.errors import BatchlineError, InputError, LedgerError, LedgerFileChanged
from core.ledger import Ledger
from core.ledger.settings import DEFAULT_SERVER, SERVER, Settings, server_list
from core.ledger.windows import WindowPresence
from core.paths import data_dir
from desktop.app.background import (
    ServeOptions,
    start_process,
    stop_controller,
    wait_until_ready,
)
from desktop.app.close_dialog import CloseChoice, ask_on_close
from desktop.app.demo import demo_ledger, demo_settings
from desktop.app.first_start import FirstChoice, FirstStartQuestion, edit_settings, look_at
from desktop.app.logs import install_excepthook
from desktop.app.main_thread_gc import MainThreadCollector
from desktop.app.single_window import WindowBeacon, hand_over
from desktop.common.tasks import BackgroundTasks
from desktop.presets.demo_presets_dialog import offer_demo_presets
from desktop.settings.settings_dialog import SettingsDialog
from desktop.window.main_window import MainWindow
from desktop.window.tray import ProgressTray, tray_available

if TYPE_CHECKING:
    import argparse
    from pathlib import Path

    from PySide6.QtWidgets import QApplication

log = logging.getLogger(__name__)
KEEP_S = 1.0  # how often the session checks that the background controller runs
RESTART_AFTER_FAILURE_S = 10.0


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


def server_configured(ledger: Ledger) -> bool:
    """Whether the ledger is the artist's: a server was set, or it holds jobs (made with the
    default server, maybe just not running now), never a reason to fall back to the demo."""
    return bool(SERVER.get(ledger)) or ledger.latest_seq() > 0


async def wants_demo(
    options: SessionOptions, real: Ledger, default_server: str = DEFAULT_SERVER
) -> bool:
    """Demo when asked; the artist's ledger when a server is given or was set; else (a first
    start) the artist is told what answers at ComfyUI's usual address and chooses: use it
    (it is set then), try the demo, or set an address in Settings."""
    if options.demo:
        return True
    if options.server or server_configured(real):
        return False
    found = await look_at(default_server)
    log.info("first start: %s", found.line())
    while True:
        choice = await FirstStartQuestion.ask(found)
        if choice is FirstChoice.use:
            SERVER.set(real, found.server)
            return False
        if choice is FirstChoice.demo:
            return True
        if await edit_settings(real):
            return False


def check_servers(servers: list[str]) -> None:
    """Raise InputError naming the first of ``servers`` (a hand-edited setting or --server)
    that is not a server address."""
    try:
        for server in servers:
            server_address(server)
    except ValueError as exc:
        raise InputError(str(exc)) from None


class Session(QObject):
    """A window on one ledger (the artist's, or the demo's) and the ledger's background
    controller: the window is a client, `batchline serve` does the work.

    The session starts the background controller unless one runs already, and starts it again
    if it goes away while the window is open (not after an error it stopped for: that needs
    the artist). ``finished`` resolves to what to do on closing: "quit" (nothing left to do),
    "background" (keep working, then stop), "stop" (stop sending now), "quit_all" (Quit
    Batchline completely) or "restart" (settings changed, or leaving the demo).
    """

    default_server = DEFAULT_SERVER  # where a first start looks for a ComfyUI (tests move it)

    def __init__(self, options: SessionOptions) -> None:
        super().__init__()
        self.options = options
        self.ledger: Ledger | None = None
        self.controller: ControllerClient | None = None
        self.window: MainWindow | None = None
        self.tray: ProgressTray | None = None
        self.demo = False
        self.tasks = BackgroundTasks(self)
        self.finished: asyncio.Future[str] = asyncio.get_event_loop().create_future()
        self._attached_run = ""  # the controller run this window told it watches
        self.presence: WindowPresence | None = None  # tells the controller a window watches

    async def open(self) -> MainWindow:
        real = Ledger.open_existing(self.options.data_dir)  # made on the first run only
        if real.created:
            log.info("a new, empty ledger was made at %s", real.path)
        settings = Settings.load(real)
        self.demo = await wants_demo(self.options, real, self.default_server)
        if self.demo:
            real.close()
            self.ledger = demo_ledger(self.options.data_dir)
            settings = demo_settings(self.ledger, "")
        else:
            self.ledger = real
            check_servers(server_list(self.options.server or "") or settings.servers)
        self.presence = WindowPresence(self.ledger.folder)
        self.presence.hold()
        self.controller = ControllerClient(self.ledger)
        self.window = self._window(settings)
        await self.controller.start()
        self._attach()
        if tray_available():
            self.tray = self._tray()
        self.tasks.start(self._keep_controller(), "the background controller")
        return self.window

    def _tray(self) -> ProgressTray:
        assert self.ledger is not None
        assert self.controller is not None
        tray = ProgressTray(self.ledger, self.controller.status, self)
        tray.open_requested.connect(self.show_window)
        tray.quit_all_requested.connect(self._quit_all)
        self.controller.add_status_listener(tray.show_status)
        tray.start()
        return tray

    def _serve_options(self) -> ServeOptions:
        return ServeOptions(
            data_dir=self.options.data_dir,
            demo=self.demo,
            server=self.options.server,
            demo_job_seconds=self.options.demo_job_seconds,
            verbose=self.options.verbose,
        )

    async def _keep_controller(self) -> None:
        """Start the background controller unless one runs; attach to it; start it again if
        it goes away (unless it stopped for an error: the status bar says which), until the
        ledger file is gone."""
        assert self.ledger is not None
        assert self.controller is not None
        first = True
        while True:
            try:
                if not self._ledger_still_there():
                    await self.controller.stop()  # nothing left to follow
                    return
                self.controller.refresh()
                if self.window is not None and self.window.isVisible():  # not while in the tray
                    free = self.controller.running is None and not self.ledger.lease.taken()
                    if free and (first or not self.controller.failed):
                        await self._start_controller()
                    self._attach()
            except LedgerError:
                if self._ledger_still_there():
                    raise
                await self.controller.stop()  # deleted between the look and the lease's file
                return
            first = False
            await asyncio.sleep(KEEP_S)

    def _ledger_still_there(self) -> bool:
        """Whether the ledger file is still the one opened. Deleted or moved away, or replaced
        (a backup restored, a file sync), under the window (the background controller stops by
        itself then): said once; no controller is started, which would make an empty data
        folder there again, or write into the file now there."""
        assert self.ledger is not None
        try:
            self.ledger.handle.watch.check()
        except LedgerFileChanged as exc:
            log.error("%s", exc)
            if self.window is not None:
                self.window.show_error(self._changed_text())
            return False
        return True

    def _changed_text(self) -> str:
        assert self.ledger is not None
        if self.ledger.path.exists():
            return (
                f"The ledger {self.ledger.path} was replaced by another file (a backup "
                "restored, a file sync?): Batchline writes nothing more to it. Quit and start "
                "it again to use the file now there."
            )
        return (
            f"The data folder {self.ledger.folder} is gone (deleted or moved): Batchline cannot "
            "follow its jobs any more. Quit and start it again."
        )

    def _attach(self) -> None:
        """A window watches the running controller (again): it must not stop by itself when
        its work is done."""
        assert self.ledger is not None
        assert self.controller is not None
        running = self.controller.running
        if running is not None and running.run_id != self._attached_run:
            self.ledger.controller_runs.exit_when_idle(running.run_id, False)
            self._attached_run = running.run_id

    async def _start_controller(self) -> None:
        assert self.ledger is not None
        assert self.controller is not None
        self.controller.starting = True
        try:
            process = start_process(self._serve_options(), self.ledger.folder)
            await wait_until_ready(self.ledger, process)
        except (BatchlineError, OSError) as exc:
            log.error("background controller: %s", exc)
            if self.window is not None:
                self.window.show_error(str(exc))
            await asyncio.sleep(RESTART_AFTER_FAILURE_S)
        finally:
            self.controller.starting = False
            self.controller.refresh()

    def _window(self, settings: Settings) -> MainWindow:
        assert self.ledger is not None
        assert self.controller is not None
        output = settings.output_folder
        window = MainWindow(self.ledger, self.controller, demo=self.demo, output_dir=output)
        window.fit_to_screen()
        window.connect_real_requested.connect(self._leave_demo)
        window.settings_requested.connect(self._settings)
        window.quit_all_requested.connect(self._quit_all)
        window.presets.arrived.connect(self.show_window)  # sent from ComfyUI's editor
        window.confirm_close = self._confirm_close
        self.tasks.failed.connect(lambda task, why: window.show_error(f"{task}: {why}"))
        install_excepthook(window.show_error)
        window.model.loaded.connect(self._freeze_heap)
        window.start()
        window.show()
        return window

    def _confirm_close(self) -> bool:
        """The window is closing: with jobs left, ask whether to keep working in the
        background; whether it may close."""
        assert self.ledger is not None
        assert self.controller is not None
        if self.finished.done():
            return True
        left = self.ledger.unfinished_count()
        if not left or self.controller.running is None:
            self._finish("quit")
            return True
        assert self.window is not None
        choice = ask_on_close(self.window, left)
        if choice is None:
            return False
        if choice is CloseChoice.background and self.tray is not None:
            self._to_tray(left)
            return False  # hidden, not closed: the tray opens it again
        self._finish(str(choice))
        return True

    def _to_tray(self, left: int) -> None:
        """Hide the window; the tray shows the progress and says when all is done."""
        assert self.ledger is not None
        assert self.tray is not None
        assert self.window is not None
        running = self.controller.running if self.controller is not None else None
        if running is not None and running.origin == APP:  # this process stays: say it
            self.ledger.controller_runs.exit_when_idle(running.run_id, True)
        self._attached_run = ""
        self.window.hide()
        self.tray.announce_done = True
        jobs = "1 job" if left == 1 else f"{left} jobs"
        self.tray.say("Batchline keeps working", f"{jobs} left; open Batchline here to watch.")

    @Slot()
    def show_window(self) -> None:
        """The window in front again (from the tray, or asked by a later launch), attached to
        the controller (or a new one)."""
        if self.window is None:
            return
        if self.tray is not None:
            self.tray.announce_done = False
        self.window.setWindowState(self.window.windowState() & ~Qt.WindowState.WindowMinimized)
        self.window.show()
        self.window.raise_()
        self.window.activateWindow()

    @Slot()
    def _quit_all(self) -> None:
        self._finish("quit_all")
        if self.window is not None:
            self.window.close()

    @Slot()
    def _settings(self) -> None:
        """Settings of the real ledger (in demo mode too: the demo ledger has none to edit)."""
        if self.window is not None and self.window.demo:
            self._leave_demo()
        elif self.ledger is not None and SettingsDialog.ask(
            self.ledger, self.window, self.controller
        ):
            self._finish("restart")

    @Slot()
    def _leave_demo(self) -> None:
        with Ledger.open_existing(self.options.data_dir) as real:
            if SettingsDialog.ask(real, self.window) is not None:
                if self.ledger is not None:
                    offer_demo_presets(self.ledger, real, self.window)
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

    def _finish(self, how: str) -> None:
        if not self.finished.done():
            self.finished.set_result(how)

    async def close(self, how: str = "quit") -> None:
        """Close the window, and do ``how`` with the background controller: leave it working
        until its jobs are done ("background"), stop it ("stop", "quit_all", and "quit" or
        "restart" when the app started it), or leave it as it is (one started by hand)."""
        await self.tasks.cancel_all()
        if self.tray is not None:
            self.tray.stop()
        if self.controller is not None:
            await self.controller.stop()
            await self._settle_controller(how)
        gc.unfreeze()
        if self.window is not None:
            self.window.confirm_close = None
            self.window.close()
            self.window.deleteLater()
        if self.presence is not None:
            self.presence.release()
        if self.ledger is not None:
            self.ledger.close()

    async def _settle_controller(self, how: str) -> None:
        assert self.ledger is not None
        assert self.controller is not None
        if not self.ledger.path.exists():  # the data folder is gone: its controller stops
            return
        self.controller.refresh()
        running = self.controller.running
        if running is None:
            return
        if how == "background":  # one the app started stops once done: no window watches it
            log.info("the background controller (pid %d) goes on", running.pid)
            return
        stop = how in ("stop", "quit_all") or running.origin == APP
        if stop and not await stop_controller(self.ledger, running.run_id, running.pid):
            log.error("the background controller (pid %d) did not stop", running.pid)


async def run_app(app: QApplication, options: SessionOptions) -> int:
    """Open sessions until the artist quits (a settings change reopens one)."""
    collector = MainThreadCollector(parent=app)
    collector.start()
    try:
        return await _run_sessions(app, options)
    finally:
        collector.stop()


async def _run_sessions(app: QApplication, options: SessionOptions) -> int:
    if hand_over(options.data_dir):
        print("Batchline is open already: its window was brought forward.")
        return 0
    beacon = WindowBeacon(options.data_dir, app)
    if not beacon.listen():
        log.warning("a later launch cannot bring this window forward (no local socket)")
    try:
        return await _sessions(app, options, beacon)
    finally:
        beacon.close()


async def _sessions(app: QApplication, options: SessionOptions, beacon: WindowBeacon) -> int:
    quitting = asyncio.Event()
    app.aboutToQuit.connect(quitting.set)
    while True:
        session = Session(options)
        beacon.show_requested.connect(session.show_window)
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
        beacon.show_requested.disconnect(session.show_window)
        await session.close(how)
        if how != "restart":
            return 0
