"""`batchline --self-test`: real jobs on the simulator, controller and window; a JSON report."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import platform
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core import __version__
from desktop.app.display import display_problem, missing_library_message

if TYPE_CHECKING:
    import argparse

    from PySide6.QtWidgets import QApplication

    from core.controller import Controller
    from core.ledger import Ledger
    from simulator.thread import SimulatorThread

EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_TIMEOUT = 0, 1, 2, 3
TIMEOUT_ENV = "BATCHLINE_SELF_TEST_TIMEOUT"
DEFAULT_TIMEOUT_S = 60.0
JOBS = 3
JOB_SECONDS = 0.2
SAMPLE = "Soft gradient (model-free)"
# Used when resources/presets is missing: a model-free workflow whose seed varies the noise.
FALLBACK_WORKFLOW: dict[str, Any] = {
    "1": {
        "class_type": "EmptyImage",
        "inputs": {"width": 128, "height": 128, "batch_size": 1, "color": 0},
    },
    "2": {
        "class_type": "ImageAddNoise",
        "inputs": {"image": ["1", 0], "seed": 1, "strength": 0.5},
    },
    "3": {
        "class_type": "SaveImage",
        "inputs": {"images": ["2", 0], "filename_prefix": "batchline_self_test"},
    },
}


class SelfTestError(Exception):
    """A check failed: the message is the reason in the report."""


@dataclass
class Report:
    """What the self-test found; one JSON line at the end."""

    started: float = field(default_factory=time.perf_counter)
    step: str = "start"
    data: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)

    def enter(self, step: str) -> None:
        self.step = step

    def timed(self, name: str, since: float) -> None:
        self.timings[name] = round(time.perf_counter() - since, 3)

    def as_json(self, ok: bool, error: str | None = None) -> str:
        body: dict[str, Any] = {"ok": ok, "version": __version__}
        if error:
            body["error"] = error
            body["step"] = self.step
        body.update(dict(self.data))
        body["timings"] = dict(self.timings)
        body["seconds"] = round(time.perf_counter() - self.started, 3)
        return json.dumps(body, sort_keys=False)


def run(args: argparse.Namespace) -> int:
    """Run the self-test; print the report (and write it to ``args.report``); the exit code."""
    report_path = Path(args.report) if getattr(args, "report", None) else None
    report = Report()
    watchdog = start_watchdog(report, report_path, timeout_seconds())
    try:
        code = _checked(report)
        error = None if code == EXIT_OK else report.data.pop("error", "failed")
    finally:
        watchdog.cancel()
    return finish(report, report_path, code, error)


def _checked(report: Report) -> int:
    """Run every check, turning a failure into a reason in ``report.data['error']``."""
    problem = display_problem()
    if problem:
        report.data["error"] = problem.removeprefix("batchline gui: ")
        return EXIT_USAGE
    try:
        check_everything(report)
    except ImportError as exc:
        report.data["error"] = missing_library_message(exc)
        return EXIT_USAGE
    except SelfTestError as exc:
        report.data["error"] = str(exc)
        return EXIT_FAILURE
    except Exception as exc:
        report.data["error"] = f"{type(exc).__name__}: {exc}".rstrip(": ")
        report.data["traceback"] = traceback.format_exc(limit=8).splitlines()[-6:]
        return EXIT_FAILURE
    return EXIT_OK


def finish(report: Report, path: Path | None, code: int, error: str | None) -> int:
    """Print the report line; write it to ``path``; a write failure is a failure too."""
    report.enter("report" if code == EXIT_OK else report.step)
    line = report.as_json(code == EXIT_OK, error)
    if path is not None:
        try:
            write_report(path, line)
        except OSError as exc:
            why = f"cannot write the report to {path}: {exc.strerror or exc}"
            line = report.as_json(False, why)
            code = EXIT_FAILURE
    emit(line, failed=code != EXIT_OK)
    return code


def write_report(path: Path, line: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".tmp")
    partial.write_text(line + "\n", encoding="utf-8")
    partial.replace(path)


def emit(line: str, failed: bool) -> None:
    """The report on stdout, and the reason on stderr when failed (stdout may be absent)."""
    for stream, text in ((sys.stdout, line), (sys.stderr if failed else None, _reason(line))):
        if stream is not None and text:
            print(text, file=stream, flush=True)


def _reason(line: str) -> str:
    body = json.loads(line)
    return f"batchline --self-test failed at {body.get('step')}: {body.get('error')}"


def timeout_seconds() -> float:
    value = os.environ.get(TIMEOUT_ENV, "")
    try:
        return float(value) if value else DEFAULT_TIMEOUT_S
    except ValueError:
        return DEFAULT_TIMEOUT_S


def start_watchdog(report: Report, path: Path | None, seconds: float) -> threading.Timer:
    """A hang becomes exit code 3 with the step it hung in (a thread: Qt may be stuck)."""

    def expire() -> None:
        why = f"timed out after {seconds:g} s"
        try:
            line = report.as_json(False, why)
        except RuntimeError:  # the main thread changed the report meanwhile
            line = json.dumps({"ok": False, "error": why, "step": report.step})
        if path is not None:
            with contextlib.suppress(OSError):
                write_report(path, line)
        emit(line, failed=True)
        os._exit(EXIT_TIMEOUT)

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()
    return timer


# --- the checks ------------------------------------------------------------------------------


def check_everything(report: Report) -> None:
    report.data["launch_s"] = seconds_since_launch()
    report.enter("qt")
    started = time.perf_counter()
    app = qt_application()
    report.timed("qt_s", started)
    collect_qt_messages(report)
    report.data.update(environment(app))
    with tempfile.TemporaryDirectory(prefix="batchline-self-test-") as tmp:
        run_in_loop(app, scenario(app, Path(tmp), report))


def qt_application() -> QApplication:
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    app.setApplicationName("Batchline")
    app.setQuitOnLastWindowClosed(False)
    return app


def collect_qt_messages(report: Report) -> None:
    """Qt's warnings go into the report (the first few), not onto the terminal."""
    from PySide6.QtCore import QtMsgType, qInstallMessageHandler

    messages: list[str] = report.data.setdefault("qt_messages", [])

    def handler(kind: QtMsgType, _context: object, message: str) -> None:
        if kind != QtMsgType.QtDebugMsg and message not in messages and len(messages) < 10:
            messages.append(message)

    qInstallMessageHandler(handler)


def environment(app: QApplication) -> dict[str, Any]:
    import PySide6
    from PySide6.QtCore import qVersion

    return {
        "platform": app.platformName(),
        "qt": qVersion(),
        "pyside": PySide6.__version__,
        "python": platform.python_version(),
        "os": f"{platform.system()} {platform.machine()}",
        "frozen": bool(getattr(sys, "frozen", False)),
        "keyring": keyring_backend(),
    }


def keyring_backend() -> str:
    """The keyring backend in use; fails when keyring's backends were not bundled."""
    from importlib.metadata import entry_points

    import keyring

    if not entry_points(group="keyring.backends"):
        raise SelfTestError("keyring has no backends (its package metadata is missing)")
    backend = keyring.get_keyring()
    return f"{type(backend).__module__.removeprefix('keyring.backends.')}.{type(backend).__name__}"


def run_in_loop(app: QApplication, coroutine: Any) -> None:
    """Run ``coroutine`` to completion on a qasync loop over ``app``."""
    import qasync

    from desktop.app.main_thread_gc import MainThreadCollector

    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    collector = MainThreadCollector(parent=app)
    collector.start()
    try:
        loop.run_until_complete(coroutine)
    finally:
        collector.stop()
        loop.close()
        asyncio.set_event_loop(None)


async def scenario(app: QApplication, tmp: Path, report: Report) -> None:
    """Ledger, simulator, 3 jobs through the real controller, the window, a thumbnail."""
    from core.comfy import ComfyClient
    from core.ledger import Ledger

    report.enter("simulator")
    simulator = start_simulator(tmp)
    try:
        with Ledger(tmp / "ledger") as ledger:
            async with ComfyClient(simulator.url) as client:
                controller = make_controller(ledger, client, tmp)
                await run_jobs(ledger, controller, tmp, report)
                report.enter("window")
                report.data.update(show_window(app, ledger, controller, tmp, report))
            report.enter("thumbnail")
            report.data["thumbnail"] = thumbnail(ledger, tmp)
    finally:
        await asyncio.to_thread(simulator.stop)
    report.enter("background controller")
    report.data["background_s"] = await background_round_trip(tmp / "home")


async def background_round_trip(home: Path) -> float:
    """`batchline serve --demo` started as the app starts it (this installation running
    itself), seen running in the ledger, then stopped through it; the seconds it took."""
    from core.errors import BatchlineError
    from desktop.app.background import (
        ServeOptions,
        start_process,
        stop_controller,
        wait_until_ready,
    )
    from desktop.app.demo import demo_ledger

    started = time.perf_counter()
    with demo_ledger(home) as ledger:
        process = start_process(ServeOptions(data_dir=home, demo=True), ledger.folder)
        await wait_until_ready(ledger, process)
        row = ledger.controller_runs.current()
        if row is None or not await stop_controller(ledger, row.run_id, row.pid):
            raise BatchlineError("the background controller did not stop when asked")
    return round(time.perf_counter() - started, 3)


def start_simulator(tmp: Path) -> SimulatorThread:
    from desktop.app.demo import start_simulator as start

    return start(tmp / "simulator", JOB_SECONDS)


async def run_jobs(ledger: Ledger, controller: Controller, tmp: Path, report: Report) -> None:
    report.enter("preset")
    name, source = add_preset(ledger, tmp)
    report.data.update(preset=name, preset_source=source)
    report.enter("queue")
    job_ids = queue_jobs(ledger, name)
    report.enter("jobs")
    started = time.perf_counter()
    await asyncio.wait_for(controller.run_until_idle(), timeout=30)
    report.timed("jobs_s", started)
    jobs = [ledger.job(job_id) for job_id in job_ids]
    succeeded = sum(job.state.value == "succeeded" for job in jobs)
    report.data.update(jobs=len(jobs), succeeded=succeeded)
    if succeeded != JOBS:
        ends = ", ".join(f"{job.state.value} ({job.reason or 'no reason'})" for job in jobs)
        raise SelfTestError(f"{succeeded} of {JOBS} jobs succeeded: {ends}")


def add_preset(ledger: Ledger, tmp: Path) -> tuple[str, str]:
    """The bundled model-free sample preset, or the built-in fallback workflow."""
    from desktop.app.demo import SAMPLE_PRESETS, SAMPLE_SEED_INPUTS
    from desktop.presets.preset_files import add_preset_file

    path = SAMPLE_PRESETS / f"{SAMPLE}.json"
    source, seeds = "resources", SAMPLE_SEED_INPUTS.get(SAMPLE)
    if not path.exists():
        path, source, seeds = tmp / "self-test.json", "built-in", None
        path.write_text(json.dumps(FALLBACK_WORKFLOW), encoding="utf-8")
    result = add_preset_file(ledger, path, seeds)
    if not result.name:
        raise SelfTestError(f"preset {path.name}: {result.error}")
    return result.name, source


def queue_jobs(ledger: Ledger, name: str) -> list[str]:
    from core.batch import BatchSpec, SeedPlan
    from core.controller.commands import LedgerCommands

    spec = BatchSpec(seeds=SeedPlan(count=JOBS, start=1, step=500_000), requester="self-test")
    _batch, job_ids = LedgerCommands(ledger).queue_batch(name, spec)
    return job_ids


def make_controller(ledger: Ledger, client: Any, tmp: Path) -> Controller:
    from core.controller import Controller, ControllerConfig

    config = ControllerConfig(poll_active_s=0.05, poll_idle_s=0.2, grace_s=2.0)
    return Controller(ledger, client, config=config, output_dir=tmp / "outputs")


def show_window(
    app: QApplication, ledger: Ledger, controller: Controller, tmp: Path, report: Report
) -> dict[str, Any]:
    """Build, show and paint the real main window over the ledger (controller stopped); close."""
    started = time.perf_counter()
    from desktop.window.main_window import MainWindow

    report.timed("window_import_s", started)
    started = time.perf_counter()
    window = MainWindow(
        ledger, controller, demo=True, output_dir=tmp / "outputs", thumbnail_dir=tmp / "thumbs"
    )
    window.resize(1200, 760)
    window.start()
    window.show()
    app.processEvents()
    report.timed("window_s", started)
    report.data["launch_to_window_s"] = launch_to_window(report)
    try:
        return {**window_facts(window), "single_window": single_window(tmp)}
    finally:
        window.close()
        window.deleteLater()
        app.processEvents()


def window_facts(window: Any) -> dict[str, Any]:
    rows = window.model.rowCount()
    if rows != JOBS:
        raise SelfTestError(f"the window shows {rows} jobs, expected {JOBS}")
    if not window.isVisible():
        raise SelfTestError("the main window is not visible after show()")
    picture = window.grab()
    if picture.isNull():
        raise SelfTestError("the main window could not be rendered")
    return {"window": [picture.width(), picture.height()], "window_title": window.windowTitle()}


def single_window(tmp: Path) -> bool:
    """Whether a window can listen for a later launch (Qt's local sockets are in the bundle)."""
    from desktop.app.single_window import WindowBeacon

    beacon = WindowBeacon(tmp)
    try:
        if not beacon.listen():
            raise SelfTestError("the window cannot listen for a later launch (local socket)")
        return True
    finally:
        beacon.close()


def thumbnail(ledger: Ledger, tmp: Path) -> list[int]:
    """Make the first output's thumbnail with Pillow and read it back with Qt."""
    from PySide6.QtGui import QImage

    from desktop.common.thumbnails import make_thumbnail

    outputs = [p for job in ledger.jobs() for a in ledger.attempts(job.id) for p in a.outputs]
    if not outputs:
        raise SelfTestError("the jobs succeeded but recorded no output images")
    thumb = make_thumbnail(Path(outputs[0]), tmp / "thumbnails")
    image = QImage(str(thumb))
    if image.isNull():
        raise SelfTestError(f"Qt cannot read the thumbnail {thumb.name}")
    return [image.width(), image.height()]


# --- timing ----------------------------------------------------------------------------------


def seconds_since_launch() -> float | None:
    """Seconds since this process started (Linux /proc), or None elsewhere."""
    try:
        stat = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        uptime = float(Path("/proc/uptime").read_text().split()[0])
        ticks = os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return None
    return round(uptime - int(stat[19]) / ticks, 3)


def launch_to_window(report: Report) -> float | None:
    """Process start to window shown, leaving out the jobs this test ran in between."""
    launch: float | None = report.data.get("launch_s")
    if launch is None:
        return None
    t = report.timings
    return round(launch + t["qt_s"] + t.get("window_import_s", 0.0) + t["window_s"], 3)
