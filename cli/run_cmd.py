"""`batchline run` and `batchline serve`: the controller, headless.

`run` prints a line per job state change (and with ``--until-idle`` ends when no job is left);
`serve` is the long-running controller of a data folder: one line when it is ready (and one
saying where its HTTP API listens: cli/serve_api.py), then it works until SIGTERM or Ctrl-C, or
until its ledger file is gone or replaced (the controller stops: one line, exit 1). A second
one for the same ledger is refused (the lease)."""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import signal
import sys
import time
from argparse import SUPPRESS
from typing import TYPE_CHECKING, Any

import httpx

from cli.arg_types import SECONDS, whole
from cli.common import open_ledger, server_urls, warn
from cli.serve_api import api_options, api_plan, api_serving
from core.comfy.client import CONNECT_TIMEOUT_S, DEFAULT_TIMEOUT, READ_TIMEOUT_S
from core.comfy.token_store import client_for
from core.controller import Controller, ControllerConfig
from core.controller.published import APP, TERMINAL
from core.errors import BatchlineError, InputError
from core.job_state import JobState
from core.ledger.settings import PAUSED, Settings, check_every_setting
from core.paths import data_dir
from core.pictures.pictures import recorded_outputs
from core.reason_texts import cause_text
from desktop.app.demo import DEMO_FOLDER, demo_ledger, demo_settings, start_simulator

if TYPE_CHECKING:
    import argparse
    from collections.abc import Iterator
    from pathlib import Path

    from cli.serve_api import ApiPlan
    from core.controller.status import ControllerStatus
    from core.ledger import Ledger, TransitionRecord

FEED_POLL_S = 0.2
# How long `run --until-idle` waits for room in a full output folder before it gives up.
FULL_OUTPUT_PATIENCE_S = 600.0
# States whose transition cause says nothing the state does not.
QUIET_CAUSES = frozenset({JobState.queued, JobState.running, JobState.succeeded})


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "run",
        help="run the controller headless (until Ctrl-C, or until idle)",
        description="Send the ledger's pending jobs to ComfyUI and follow them to the end.",
    )
    parser.add_argument(
        "--until-idle",
        action="store_true",
        help="exit 0 when no job is left unfinished (1 when the output folder stays full for "
        f"{FULL_OUTPUT_PATIENCE_S / 60:g} minutes: the pictures wait on the server)",
    )
    _controller_options(parser)
    parser.set_defaults(func=run)
    serve = subparsers.add_parser(
        "serve",
        help="the background controller of this data folder (until SIGTERM or Ctrl-C)",
        description="Run this ledger's controller until stopped: prints one line when ready, "
        "then where its HTTP API listens (docs/api.md); a second one for the same ledger is "
        "refused.",
    )
    _controller_options(serve)
    api_options(serve)
    serve.add_argument(
        "--demo",
        action="store_true",
        help="the demo's controller: its own ledger and the built-in simulated ComfyUI",
    )
    # Set by the desktop app when it starts the controller in the background: the app may
    # then stop it when nothing is left to do; one started by hand it leaves alone.
    serve.add_argument("--started-by", choices=(APP, TERMINAL), default=TERMINAL, help=SUPPRESS)
    serve.add_argument("--demo-job-seconds", type=SECONDS, default=4.0, help=SUPPRESS)
    serve.set_defaults(func=serve_ledger, until_idle=False)


def _controller_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--max-queued",
        type=whole(),
        metavar="N",
        help="global cap: the most prompts ComfyUI holds, running + pending, all clients",
    )
    parser.add_argument(
        "--deep-queue",
        type=whole(),
        metavar="N",
        help="for short jobs, let ComfyUI hold up to N prompts so the GPU never waits for "
        "Batchline (by default the caps left at 3 deepen so on their own, up to the setting "
        "max_queue_depth, 8; a cap given here without --deep-queue is a ceiling)",
    )
    parser.add_argument(
        "--per-requester", type=whole(), metavar="N", help="queued + running jobs per requester"
    )
    parser.add_argument(
        "--poll-interval", type=SECONDS, metavar="S", help="seconds between polls while active"
    )
    parser.add_argument(
        "--max-pictures",
        type=whole(),
        metavar="N",
        help="the most pictures kept of one job; the rest stay on the server (default 100)",
    )
    parser.add_argument(
        "--request-timeout",
        type=SECONDS,
        metavar="S",
        help=f"seconds to wait for each answer from ComfyUI (default {READ_TIMEOUT_S:g})",
    )
    parser.add_argument(
        "--settle",
        type=SECONDS,
        metavar="S",
        help="seconds an unanswered submission is looked up before it is sent again, counted "
        "from when it was written (default 90; keep it above twice the request timeout)",
    )


def serve_ledger(args: argparse.Namespace) -> int:
    return run(args, ready_line=True)


def run(args: argparse.Namespace, *, ready_line: bool = False) -> int:
    if args.deep_queue is not None and args.deep_queue < 1:
        raise InputError("--deep-queue must be at least 1")
    with _backend(args) as (ledger, settings, servers):
        api = api_plan(args, ledger, len(servers))
        config = settings.controller.with_overrides(
            global_cap=args.max_queued,
            deep_queue=_deep_queue(args),
            max_queue_depth=args.deep_queue,
            per_requester_cap=args.per_requester,
            poll_active_s=args.poll_interval,
            settle_s=args.settle,
            max_pictures_per_job=args.max_pictures,
        )
        timeout = _request_timeout(args.request_timeout)
        origin = getattr(args, "started_by", TERMINAL)
        try:
            output = settings.output_folder
            asyncio.run(
                _serve(
                    ledger,
                    config,
                    servers,
                    output,
                    args.until_idle,
                    timeout,
                    ready_line,
                    origin,
                    api,
                )
            )
        except (KeyboardInterrupt, asyncio.CancelledError):
            print("stopped; prompts already sent keep running in ComfyUI", file=sys.stderr)
    return 0


@contextlib.contextmanager
def _backend(args: argparse.Namespace) -> Iterator[tuple[Ledger, Settings, list[str]]]:
    """The ledger, its settings and the servers to feed: the data folder's and ComfyUI, or
    with ``--demo`` the demo's and a simulator running in this process."""
    if not getattr(args, "demo", False):
        with open_ledger(args) as ledger:
            check_every_setting(ledger)
            yield ledger, Settings.load(ledger), server_urls(args, ledger)
        return
    simulator = start_simulator(data_dir(args.data_dir) / DEMO_FOLDER, args.demo_job_seconds)
    try:
        with demo_ledger(data_dir(args.data_dir)) as ledger:
            yield ledger, demo_settings(ledger, simulator.url), [simulator.url]
    finally:
        simulator.stop()


def _request_timeout(seconds: float | None) -> httpx.Timeout:
    if seconds is None:
        return DEFAULT_TIMEOUT
    if not math.isfinite(seconds) or seconds <= 0:
        raise InputError(f"--request-timeout must be a positive number of seconds, not {seconds}")
    return httpx.Timeout(seconds, connect=min(seconds, CONNECT_TIMEOUT_S))


async def _serve(
    ledger: Ledger,
    config: ControllerConfig,
    servers: list[str],
    output_dir: Path,
    until_idle: bool,
    request_timeout: httpx.Timeout,
    ready_line: bool,
    origin: str,
    api: ApiPlan | None = None,
) -> None:
    _stop_on_sigterm()
    async with contextlib.AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(client_for(url, timeout=request_timeout))
            for url in servers
        ]
        controller = Controller(
            ledger, clients, config=config, output_dir=output_dir, origin=origin
        )
        printer = ChangePrinter(ledger)
        controller.add_status_listener(LocalErrorPrinter())
        controller.add_status_listener(NoticeErrorPrinter())
        await controller.start()
        feed = asyncio.create_task(printer.follow())
        try:
            listening = await stack.enter_async_context(api_serving(ledger, api))
            _announce(ledger, controller)
            if ready_line:  # the one line a parent process (the app, a script) waits for
                print(f"ready: pid {os.getpid()}, ledger {ledger.folder}", flush=True)
            if listening:
                print(f"listening on {listening}", flush=True)
            await _wait(controller, until_idle)
        finally:
            feed.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await feed
            await controller.stop()
            printer.print_new()


def _deep_queue(args: argparse.Namespace) -> bool | None:
    """``--deep-queue`` turns the deep queue on; a cap given without it is a ceiling (the
    settings' ``"auto"`` would let a cap given as 3 deepen); else the settings say."""
    if args.deep_queue is not None:
        return True
    if args.max_queued is not None or args.per_requester is not None:
        return False
    return None


def _announce(ledger: Ledger, controller: Controller) -> None:
    config = controller.config
    print(
        f"controller for {ledger.folder} on {controller.status.server} ({config.caps_text()})",
        file=sys.stderr,
    )
    if PAUSED.get(ledger):
        warn("dispatch is paused: pending jobs wait until `batchline resume`")


async def _wait(controller: Controller, until_idle: bool) -> None:
    full_since: float | None = None
    while not (until_idle and not controller.has_active_jobs()):
        controller.check_alive()
        if controller.stop_requested.is_set():
            warn(f"stopping: {controller.stop_reason}")
            return
        if until_idle:
            full_since = _check_room(controller.status.output_full, full_since)
        await asyncio.sleep(0.1)


def _check_room(full: str, since: float | None) -> float | None:
    """Since when the output folder ``full`` has taken no pictures (None: it takes them).

    Without --until-idle `run` waits for room as long as it runs (the status line says why);
    with it, a folder still full (or not writable) after ``FULL_OUTPUT_PATIENCE_S`` ends the
    run: a script must not hang for ever, and the finished pictures stay on the server for the
    next run.
    """
    if not full:
        return None
    now = time.monotonic()
    if since is None:
        return now
    if now - since >= FULL_OUTPUT_PATIENCE_S:
        raise BatchlineError(
            f"the output folder {full} still cannot take pictures after "
            f"{FULL_OUTPUT_PATIENCE_S:g} s (see above): the finished pictures wait on the "
            "server; make room (or fix the folder) and run again"
        )
    return since


def _stop_on_sigterm() -> None:
    """SIGTERM stops as Ctrl-C does: the controller lets go of the server and the lease."""
    task = asyncio.current_task()
    if task is None or sys.platform == "win32":
        return
    with contextlib.suppress(NotImplementedError, RuntimeError):
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)


class LocalErrorPrinter:
    """A status listener printing each local error the controller retries around (the ledger
    busy, a bug), and when it clears; an error that stops it ends `run` instead."""

    def __init__(self) -> None:
        self.shown = ""

    def __call__(self, status: ControllerStatus) -> None:
        if status.local_error == self.shown or status.stopped:
            return
        if status.local_error:
            warn(f"{status.local_error} (trying again)")
        else:
            warn("the controller works again")
        self.shown = status.local_error


class NoticeErrorPrinter:
    """A status listener printing a webhook's failure once (not once a try)."""

    def __init__(self) -> None:
        self.shown = ""

    def __call__(self, status: ControllerStatus) -> None:
        if status.notice_error and status.notice_error != self.shown:
            warn(status.notice_error)
        self.shown = status.notice_error


# --- the change feed ----------------------------------------------------------------------------


class ChangePrinter:
    """Follows the ledger's change feed and prints a line for each new job transition."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self.seq = ledger.latest_seq()
        self.since = ledger.now()
        self.printed: dict[str, int] = {}  # job id -> transitions already printed

    async def follow(self) -> None:
        while True:
            await asyncio.sleep(FEED_POLL_S)
            self.print_new()

    def print_new(self) -> None:
        jobs, self.seq = self.ledger.changes_since(self.seq)
        for job in jobs:
            transitions = self.ledger.transitions(job.id)
            done = self.printed.get(job.id)
            if done is None:
                done = sum(1 for t in transitions if t.at < self.since)
            for transition in transitions[done:]:
                print(change_line(self.ledger, transition), flush=True)
            self.printed[job.id] = len(transitions)


def change_line(ledger: Ledger, transition: TransitionRecord) -> str:
    """``job_... succeeded -> /path/a.png``, ``job_... failed (out of memory): out of memory in
    KSampler (node 3)`` and the like."""
    state = transition.to_state
    line = f"{transition.job_id} {state.value}"
    if transition.attempt > 1:
        line += f" [attempt {transition.attempt}]"
    if state not in QUIET_CAUSES:
        line += f" ({cause_text(transition.cause)})"
    if state == JobState.succeeded:  # a late success's pictures are on an older attempt
        line += "".join(
            f" -> {path}" for path in recorded_outputs(ledger.attempts(transition.job_id))
        )
    elif state == JobState.failed:
        attempt = next(
            (a for a in ledger.attempts(transition.job_id) if a.n == transition.attempt), None
        )
        if attempt is not None and attempt.error:
            line += f": {attempt.error.short()}"
    return line
