"""The controller: the one asyncio service that owns the conversation with ComfyUI.

Each job's path goes one way: `pending` in the ledger → admitted (admission.py) → attempt
written with a fresh prompt_id → ``POST /prompt`` → followed on the server (reconcile.py, from
/queue + /history polling, hurried along by WebSocket events) → outputs downloaded → terminal.
Commands (cancel, retry, pause) change the ledger and wake the loop; the loop does the talking.
With several servers, each has its own loop (server_link.py) and takes pending jobs as it has room.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, TypeVar

from core.controller.commands import LedgerCommands, worker
from core.controller.fleet import Fleet
from core.controller.placing import servers_now, why_waiting
from core.controller.published import TERMINAL, StatusPublisher
from core.controller.server_link import ServerLink
from core.controller.status import Connection, ControllerStatus, StatusListener, tell
from core.controller.supervision import LoopHealth, fatal_error
from core.errors import (
    BatchlineError,
    ComfyAuthError,
    ComfyError,
    InputError,
    LedgerError,
    TransientComfyError,
)
from core.ledger.settings import CONTROLLER, MODELS_ASKED, PAUSED, ControllerConfig
from core.notify.notifier import BatchNotifier

if TYPE_CHECKING:
    from pathlib import Path

    from core.comfy import ComfyClient
    from core.ledger import AttemptRecord, JobRecord, Ledger
    from core.notify.desktop import DesktopNotices
    from core.notify.webhooks import WebhookLimits

log = logging.getLogger(__name__)

# The best connection first: with several servers, work goes on while any of them answers.
_CONNECTION_RANK = [
    Connection.connected,
    Connection.reconnecting,
    Connection.connecting,
    Connection.offline,
]

FEED_POLL_S = 0.1  # how often the change feed is read: other processes' changes act this fast
STOP_TIMEOUT_S = 5.0  # then stop() logs the tasks still running and returns, lease kept
NOTICE_FLUSH_S = 3.0  # stop() then tells the batch ends not yet told, this long at most
FEED_LOOP = "changes from other processes"
NOTICES_LOOP = "batch notices"
WEBHOOKS_LOOP = "webhooks"
LEASE_WAIT_S = 0.5  # a CLI command checking for a controller holds the lease for an instant
_T = TypeVar("_T")


class Controller(LedgerCommands):
    """Runs one ledger's jobs on one or several ComfyUI servers, holding the ledger's lease.

    Use ``await start()`` / ``await stop()``; ``status`` is the latest snapshot and
    ``add_status_listener`` calls back on every new one (on the event loop's thread). The caps
    apply to each server: with two GPUs, twice as many prompts are in flight.
    """

    def __init__(
        self,
        ledger: Ledger,
        clients: ComfyClient | Sequence[ComfyClient],
        *,
        config: ControllerConfig | None = None,
        output_dir: Path,
        origin: str = TERMINAL,
        desktop: DesktopNotices | None = None,
        webhook_limits: WebhookLimits | None = None,
    ) -> None:
        """``desktop`` and ``webhook_limits``: how batch ends are told (``BatchNotifier``)."""
        clients = list(clients) if isinstance(clients, Sequence) else [clients]
        urls = [client.base_url for client in clients]
        if not urls or len(set(urls)) != len(urls):
            raise InputError(f"one or more distinct servers are needed, not {', '.join(urls)}")
        super().__init__(ledger)
        self.config = config or CONTROLLER.get(ledger)
        self.fleet = Fleet(ledger)
        self.links = [
            ServerLink(ledger, client, self.config, output_dir, self._publish, self.fleet)
            for client in clients
        ]
        self._tasks: list[asyncio.Task[None]] = []
        self._stopping: set[asyncio.Task[None]] = set()  # tasks stop() could not wait for
        self._health = LoopHealth(
            self.config.offline_first_s, self.config.offline_max_s, ledger.path
        )
        self._fatal: BatchlineError | None = None
        self._listeners: list[StatusListener] = []
        self._seen_seq = 0
        self._ledger_read = False
        self.publisher = StatusPublisher(ledger, origin)
        self.notifier = BatchNotifier(
            ledger,
            output_dir,
            desktop=desktop,
            webhook_limits=webhook_limits,
            on_problem=self._notice_problem,
            why_waiting=self._why_waiting,
        )
        self.stop_requested = asyncio.Event()  # a client asked it to stop, through the ledger
        self.stop_reason = ""
        self.status = ControllerStatus(
            server=", ".join(link.url for link in self.links),
            global_cap=self.config.global_cap,
            per_requester_cap=self.config.per_requester_cap,
            servers=tuple(link.status for link in self.links),
        )

    # --- lifecycle -----------------------------------------------------------------------------

    async def start(self) -> None:
        """Take the controller lease (LeaseTakenError if another process has it) and run.

        Raises LedgerError while a task of the previous run has still not ended.
        """
        if self._stopping:
            raise LedgerError("the controller is still stopping (a task has not ended yet)")
        self.ledger.lease.acquire(wait_s=LEASE_WAIT_S)
        self._seen_seq = self.ledger.latest_seq()
        self.notifier.begin()
        self._fatal = None
        self.stop_requested.clear()
        self.publisher.new_run()
        self._emit(replace(self.status, started_at=time.time()))
        self._ledger_read = False  # a work loop went round (the status is then published)
        for link in self.links:
            self._spawn(f"work on {link.url}", partial(self._main_loop, link))
            self._spawn(f"events from {link.url}", partial(self._follow_events, link))
        self._spawn(FEED_LOOP, self._change_feed_loop)
        self._spawn(NOTICES_LOOP, self.notifier.run)
        self._spawn(WEBHOOKS_LOOP, self.notifier.webhooks.run)

    async def stop(self) -> None:
        """Stop talking to the server; jobs already in ComfyUI keep running there.

        The lease is released once every task has ended, and the batch ends the notices had
        not read yet were told (``_last_notices``). A task still running after
        ``STOP_TIMEOUT_S`` is logged, and the lease is kept until it ends.
        """
        if not self._tasks and not self.ledger.lease.held:
            return  # never started, or stopped already
        tasks, self._tasks = self._tasks, []
        for task in tasks:
            task.cancel()
        stuck: set[asyncio.Task[None]] = set()
        if tasks:
            _, stuck = await asyncio.wait(tasks, timeout=STOP_TIMEOUT_S)
        if not stuck:
            if tasks and self._fatal is None:
                await self._last_notices()
            self._release()
            return
        log.error(
            "controller task(s) %s did not stop in %.0f s: the controller lease is kept until "
            "they end",
            ", ".join(sorted(task.get_name() for task in stuck)),
            STOP_TIMEOUT_S,
        )
        self._stopping = stuck
        for task in stuck:
            task.add_done_callback(self._ended_late)

    async def _last_notices(self) -> None:
        """Tell the batch ends the notices' loop has not read yet (a controller that stops when
        idle stops right after the last one), within ``NOTICE_FLUSH_S``; what is left (a
        webhook not answered in time) waits in the ledger for the next controller."""
        try:
            async with asyncio.timeout(NOTICE_FLUSH_S):
                await self.notifier.step()
                await self.notifier.webhooks.flush()
        except (TimeoutError, BatchlineError) as exc:
            log.info("batch notices left for the next controller: %s", exc or "no time left")

    def _ended_late(self, task: asyncio.Task[None]) -> None:
        self._stopping.discard(task)
        if not self._stopping:
            log.warning("the controller's last task ended (%s): lease released", task.get_name())
            self._release()

    def _release(self) -> None:
        """Say in the ledger that this controller stopped (unless the ledger is what stopped
        it), then let go of the lease."""
        try:
            if not isinstance(self._fatal, LedgerError):
                self.publisher.end(self.status)
        except BatchlineError as exc:  # the ledger is unusable: the lease must go all the same
            log.warning("could not record that the controller stopped: %s", exc)
        self.ledger.lease.release()

    async def run_until_idle(self) -> None:
        """Run until no job is left pending, queued, running or cancelling."""
        await self.start()
        try:
            while self.has_active_jobs():
                self.check_alive()
                await asyncio.sleep(0.1)
        finally:
            await self.stop()

    def add_status_listener(self, listener: StatusListener) -> None:
        self._listeners.append(listener)

    def wake(self) -> None:
        """Run the next tick now rather than at the end of the poll interval (from a command
        run by ``in_worker`` too: the loop's thread is asked to do it)."""
        loop: asyncio.AbstractEventLoop | None = getattr(worker, "loop", None)
        if loop is not None:
            loop.call_soon_threadsafe(self.wake)
            return
        for link in self.links:
            link.wake()

    # --- commands (LedgerCommands) -------------------------------------------------------------

    def acted(self) -> None:
        self.wake()

    def server_count(self) -> int:
        return len(self.links)

    # --- the loops -----------------------------------------------------------------------------

    def _spawn(self, name: str, loop: Callable[[str], Awaitable[None]]) -> None:
        self._tasks.append(asyncio.create_task(self._supervise(name, loop), name=name))

    async def _supervise(self, name: str, loop: Callable[[str], Awaitable[None]]) -> None:
        """Run ``loop``, and run it again after an unexpected error (logged once, shown in the
        status, after a backoff); an error the controller cannot survive stops it."""
        while True:
            try:
                await loop(name)
                return
            except Exception as exc:
                fatal = fatal_error(exc, self.ledger.path)
                if fatal is not None:
                    self._halt(name, fatal, exc)
                    return
                delay = self._health.failed(name, exc)
                self._emit_health()
            await asyncio.sleep(delay)

    async def _main_loop(self, link: ServerLink, name: str) -> None:
        """Tick ``link`` for ever. ComfyUI's errors take it offline for a while; local ones (the
        ledger, a bug) go up to the supervisor: they are not the server's fault."""
        while True:
            self.ledger.handle.watch.check()  # the file is still ours: else stop, unwritten
            try:
                asked = MODELS_ASKED.get(self.ledger)
                await link.tick(self._live_on(link), paused=self._paused(), models_asked=asked)
                self._ledger_read = True
            except ComfyAuthError as exc:  # retrying cannot help: the supervisor stops all
                self._went_offline(link, exc, "refused Batchline's credentials")
                raise
            except TransientComfyError as exc:
                self._ledger_read = True
                delay = self._went_offline(link, exc, "is unreachable")
            except ComfyError as exc:  # a broken answer: report it, keep trying, don't hammer
                self._ledger_read = True
                delay = self._went_offline(link, exc, "answered unexpectedly")
            else:
                self._healthy(name)
                self._publish()  # pause and the jobs-per-minute rate change without the link
                delay = self._poll_interval(link)
            await link.sleep(delay)

    async def _follow_events(self, link: ServerLink, name: str) -> None:
        async with link.client.listener() as events:
            async for event in events:
                link.on_event(event, events.skipped)
                self._healthy(name)

    def _live_on(self, link: ServerLink) -> list[AttemptRecord]:
        """The live attempts ``link`` follows: those sent to its server.

        Attempts sent to a server no longer configured are followed by the first link (the
        server setting changed): not found there, they are retried there.
        """
        known = {other.url for other in self.links}
        first = link is self.links[0]
        return [
            attempt
            for attempt in self.ledger.live_attempts()
            if attempt.server == link.url or (first and attempt.server not in known)
        ]

    async def _change_feed_loop(self, name: str) -> None:
        """Wake the loops when another process changes the ledger (a job queued, cancelled or
        retried from the CLI or another window, the pause setting): the next tick acts on it.
        Publish the status for those processes, and notice when one asks this controller to
        stop, or when the ledger file was replaced or removed (``FileWatch``: it stops)."""
        paused = self._paused()
        while True:
            self.ledger.handle.watch.check_id()  # an idle controller notices a swap too
            seq, now_paused = self.ledger.latest_seq(), self._paused()
            if seq != self._seen_seq or now_paused != paused:
                self._seen_seq, paused = seq, now_paused
                self.wake()
            if self._ledger_read:  # never the first write to a ledger damaged where it reads
                self.publisher.flush(self.status)
            reason = self.publisher.stop_reason(self.has_active_jobs)
            if reason:
                self.stop_reason = reason
                self.stop_requested.set()
            self._healthy(name)
            await asyncio.sleep(FEED_POLL_S)

    # --- helpers -------------------------------------------------------------------------------

    def _went_offline(self, link: ServerLink, exc: Exception, what: str) -> float:
        """Mark ``link`` offline; the first failure of a spell is logged once, saying ``what``
        happened (unreachable, a broken answer, credentials refused)."""
        first, delay = link.went_offline(exc)
        if first:
            log.warning("ComfyUI at %s %s: %s", link.url, what, exc)
        return delay

    def _poll_interval(self, link: ServerLink) -> float:
        active = link.server.ours or self.has_active_jobs()
        return self.config.poll_active_s if active else self.config.poll_idle_s

    def has_active_jobs(self) -> bool:
        """Whether any job is pending, queued, running or cancelling."""
        return self.ledger.has_active_jobs()

    def _paused(self) -> bool:
        return PAUSED.get(self.ledger)

    def check_alive(self) -> None:
        """Raise the error that stopped the controller, if one did."""
        if self._fatal is not None:
            raise self._fatal

    def _halt(self, loop: str, error: BatchlineError, cause: Exception) -> None:
        """Stop every loop for an error the controller cannot survive (check_alive raises it)."""
        if self._fatal is not None:
            return
        self._fatal = error
        # Said once by check_alive's caller and the status; the traceback goes to the log.
        log.info("controller stopped (%s): %s", loop, error, exc_info=cause)
        current = asyncio.current_task()
        for task in self._tasks:
            if task is not current:
                task.cancel()
        self._emit(replace(self.status, stopped=str(error)))

    def _why_waiting(self, jobs: list[JobRecord]) -> list[str]:
        """Why each pending job waits, as every door says it ("" when a server can run it)."""
        servers = servers_now(self.ledger)
        return [why_waiting(self.ledger, job, servers) for job in jobs]

    def _notice_problem(self, text: str) -> None:
        """A webhook failing (or delivered again: empty), for the status line."""
        self._emit(replace(self.status, notice_error=text))

    def _healthy(self, loop: str) -> None:
        """``loop`` went round without error: clear the local error it had, if any."""
        if self._health.ok(loop):
            log.info("%s works again", loop)
            self._emit_health()

    def _emit_health(self) -> None:
        health = self._health
        self._emit(replace(self.status, local_error=health.message, output_full=health.output_full))

    def _publish(self) -> None:
        """A new status from the links' own (called whenever one of them changes)."""
        servers = tuple(link.status for link in self.links)
        positions = {job: place for server in servers for job, place in server.positions.items()}
        now = time.time()
        self._emit(
            ControllerStatus(
                connection=min((s.connection for s in servers), key=_CONNECTION_RANK.index),
                server=self.status.server,
                server_queue=sum(s.queue for s in servers),
                in_flight=len(positions),
                global_cap=self.config.global_cap,
                per_requester_cap=self.config.per_requester_cap,
                queue_depth=max((s.queue_depth for s in servers), default=0),
                paused=self._paused(),
                positions=positions,
                progress={job: p for s in servers for job, p in s.progress.items()},
                previews={job: n for s in servers for job, n in s.previews.items()},
                stalled=frozenset().union(*(s.stalled for s in servers)),
                done_per_minute=float(sum(link.recent_finishes(now) for link in self.links)),
                last_error="; ".join(
                    f"{s.server}: {s.last_error}" if len(servers) > 1 else s.last_error
                    for s in servers
                    if s.last_error
                ),
                local_error=self._health.message,
                output_full=self._health.output_full,
                notice_error=self.status.notice_error,
                stopped=str(self._fatal or ""),
                servers=servers,
                started_at=self.status.started_at,
            )
        )

    def _emit(self, status: ControllerStatus) -> None:
        if status == self.status:
            return
        self.status = status
        tell(self._listeners, status)
