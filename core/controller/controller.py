"""The controller: the one asyncio service that owns the conversation with one ComfyUI server.

Each job's path goes one way: `pending` in the ledger → admitted (admission.py) → attempt
written with a fresh prompt_id → ``POST /prompt`` → followed on the server (reconcile.py, from
/queue + /history polling, hurried along by WebSocket events) → outputs downloaded → terminal.
Commands (cancel, retry, pause) change the ledger and wake the loop; the loop does the talking.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from core.comfy import Connected as WsConnected
from core.comfy import Disconnected as WsDisconnected
from core.comfy import (
    ExecutionError,
    ExecutionInterrupted,
    ExecutionStart,
    ExecutionSuccess,
    Progress,
    Reconnected,
    Status,
)
from core.controller import admission
from core.controller.batches import queue_batch, queue_smaller
from core.controller.causes import OfflineBackoff
from core.controller.config import PAUSED_KEY, ControllerConfig
from core.controller.dispatch import Dispatcher
from core.controller.reconcile import Reconciler
from core.controller.status import Connection, ControllerStatus
from core.controller.status import Progress as JobProgress
from core.errors import ComfyAuthError, ComfyError, LedgerError, TransientComfyError
from core.job_state import JobState

if TYPE_CHECKING:
    from pathlib import Path

    from core.batch import BatchSpec
    from core.comfy import ComfyClient, Event, QueueSnapshot
    from core.ledger import BatchRecord, Ledger, RequestRecord

log = logging.getLogger(__name__)

REQUEST_POLL_S = 0.25
STOP_TIMEOUT_S = 5.0
StatusListener = Callable[[ControllerStatus], None]


class Controller:
    """Runs one ledger's jobs on one ComfyUI server, holding the ledger's controller lease.

    Use ``await start()`` / ``await stop()``; ``status`` is the latest snapshot and
    ``add_status_listener`` calls back on every new one (on the event loop's thread).
    """

    def __init__(
        self,
        ledger: Ledger,
        client: ComfyClient,
        *,
        config: ControllerConfig | None = None,
        output_dir: Path,
    ) -> None:
        self.ledger, self.client = ledger, client
        self.config = config or ControllerConfig.from_settings(ledger)
        self._reconciler = Reconciler(ledger, client, self.config, output_dir)
        self._dispatcher = Dispatcher(ledger, client, self.config, self._reconciler)
        self._backoff = OfflineBackoff(self.config.offline_first_s, self.config.offline_max_s)
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._listeners: list[StatusListener] = []
        self._progress: dict[str, JobProgress] = {}
        self._ours: dict[str, str] = {}  # prompt_id -> job id of every live attempt
        self._seen_seq = 0
        self.status = ControllerStatus(
            server=client.base_url,
            global_cap=self.config.global_cap,
            per_requester_cap=self.config.per_requester_cap,
        )

    # --- lifecycle -----------------------------------------------------------------------------

    async def start(self) -> None:
        """Take the controller lease (LeaseTakenError if another process has it) and run."""
        self.ledger.lease.acquire()
        self._seen_seq = self.ledger.latest_seq()
        for loop in (self._main_loop, self._event_loop, self._request_loop):
            self._tasks.append(asyncio.create_task(loop(), name=loop.__name__))

    async def stop(self) -> None:
        """Stop talking to the server; jobs already in ComfyUI keep running there."""
        for task in self._tasks:
            task.cancel()
        if self._tasks:
            _, stuck = await asyncio.wait(self._tasks, timeout=STOP_TIMEOUT_S)
            for task in stuck:
                log.warning("controller task %s did not stop in time", task.get_name())
        self._tasks.clear()
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
        """Run the next tick now rather than at the end of the poll interval."""
        self._wake.set()

    # --- commands ------------------------------------------------------------------------------

    def queue_batch(
        self, preset_name: str, spec: BatchSpec, seed_inputs: Iterable[str] = ()
    ) -> tuple[BatchRecord, list[str]]:
        result = queue_batch(self.ledger, preset_name, spec, seed_inputs=list(seed_inputs))
        self.wake()
        return result

    def cancel(self, job_ids: Iterable[str]) -> dict[str, str]:
        """Ask to cancel each job; returns its new state, or why it cannot be cancelled."""
        outcome = {job_id: self._one(self.ledger.request_cancel, job_id) for job_id in job_ids}
        self.wake()
        return outcome

    def cancel_batch(self, batch_id: str) -> dict[str, str]:
        jobs = self.ledger.jobs(batch=batch_id)
        return self.cancel(job.id for job in jobs if job.state.is_active)

    def cancel_all_but_running(self, batch_id: str | None = None) -> dict[str, str]:
        waiting = (JobState.pending, JobState.queued)
        return self.cancel(job.id for job in self.ledger.jobs(batch=batch_id, states=waiting))

    def retry(self, job_ids: Iterable[str]) -> dict[str, str]:
        outcome = {job_id: self._one(self._retry_one, job_id) for job_id in job_ids}
        self.wake()
        return outcome

    def retry_smaller(self, job_id: str) -> str:
        new_id = queue_smaller(self.ledger, job_id)
        self.wake()
        return new_id

    def pause(self) -> None:
        self.ledger.settings.set(PAUSED_KEY, True)
        self.wake()

    def resume(self) -> None:
        self.ledger.settings.set(PAUSED_KEY, False)
        self.wake()

    def estimate(self, job_count: int) -> tuple[int, float | None]:
        """Position of the last of ``job_count`` new jobs, and the estimated wait (seconds)."""
        counts = self.ledger.count_by_state()
        ahead = self.status.server_queue + counts.get(JobState.pending, 0)
        return admission.position_estimate(job_count, ahead, self.status.estimated_job_seconds())

    def _retry_one(self, job_id: str) -> str:
        return self.ledger.retry(job_id).state.value

    @staticmethod
    def _one(verb: Callable[[str], object], job_id: str) -> str:
        try:
            return str(verb(job_id))
        except LedgerError as exc:  # not allowed now (IllegalTransition) or no such job
            return f"refused: {exc}"

    # --- the loops -----------------------------------------------------------------------------

    async def _main_loop(self) -> None:
        while True:
            try:
                await self.tick()
                delay = self._poll_interval()
            except ComfyAuthError as exc:  # retrying cannot help: stop, say why (check_alive)
                self._went_offline(exc)
                raise
            except TransientComfyError as exc:
                delay = self._went_offline(exc)
            except ComfyError as exc:  # a broken answer: report it, keep trying, don't hammer
                log.warning("ComfyUI answered unexpectedly: %s", exc)
                delay = self._went_offline(exc)
            except Exception as exc:  # a bug must not silently stop dispatch: log, show, go on
                log.exception("controller tick failed")
                delay = self._went_offline(exc)
            await self._sleep(delay)

    async def tick(self) -> None:
        """One round: read the queue, follow our prompts, admit and submit, publish status."""
        snapshot = await self.client.queue()
        if self._backoff.failing:
            self._reconciler.server_may_have_restarted()
        self._backoff.succeeded()
        await self._follow_all(snapshot)
        await self._dispatcher.dispatch(snapshot, paused=self._paused())
        self._publish(snapshot)

    async def _follow_all(self, snapshot: QueueSnapshot) -> None:
        live = self.ledger.live_attempts()
        self._ours = {a.prompt_id: a.job_id for a in live}
        for attempt in live:
            if attempt.prompt_id in self._dispatcher.submitting:
                continue
            job = self.ledger.job(attempt.job_id)
            await self._reconciler.follow(attempt, job, snapshot)

    async def _event_loop(self) -> None:
        async with self.client.listener() as events:
            async for event in events:
                self._on_event(event)

    def _on_event(self, event: Event) -> None:
        match event:
            case WsConnected():
                self._set_connection(Connection.connected)
            case Reconnected():
                self._reconciler.server_may_have_restarted()
                self._set_connection(Connection.connected)
                self.wake()
            case WsDisconnected():
                # The session dropped: the server may be restarting, and prompts that vanish
                # from now on count as lost (retried), not as removed by someone else.
                self._reconciler.server_may_have_restarted()
                self._set_connection(Connection.reconnecting)
            case ExecutionStart(prompt_id=pid) if pid in self._ours:
                self.ledger.observe_running(pid)
            case Progress(prompt_id=pid, value=value, max=most) if pid in self._ours:
                self._progress[self._ours[pid]] = JobProgress(int(value), int(most))
                self._emit(replace(self.status, progress=dict(self._progress)))
            case ExecutionSuccess() | ExecutionError() | ExecutionInterrupted() | Status():
                self.wake()

    async def _request_loop(self) -> None:
        """Carry out commands written by other processes, and notice their new jobs."""
        while True:
            for request in self.ledger.requests.open():
                self.ledger.requests.complete(request.id, self._carry_out(request))
            seq = self.ledger.latest_seq()
            if seq != self._seen_seq:
                self._seen_seq = seq
                self.wake()
            await asyncio.sleep(REQUEST_POLL_S)

    def _carry_out(self, request: RequestRecord) -> str:
        match request.kind:
            case "cancel":
                return self.cancel([request.target])[request.target]
            case "cancel_batch":
                return f"{len(self.cancel_batch(request.target))} jobs asked to cancel"
            case "retry":
                return self.retry([request.target])[request.target]
            case _:
                return f"refused: unknown request {request.kind!r}"

    # --- helpers -------------------------------------------------------------------------------

    def _went_offline(self, exc: Exception) -> float:
        if not self._backoff.failing:
            log.warning("ComfyUI at %s is unreachable: %s", self.client.base_url, exc)
        delay = self._backoff.failed()
        self._emit(replace(self.status, connection=Connection.offline, last_error=str(exc)))
        return delay

    async def _sleep(self, delay: float) -> None:
        # asyncio.timeout, not wait_for: on Python 3.11 wait_for can swallow a cancellation that
        # lands as the event fires (gh-86296), and stop() would then wait for this loop forever.
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(delay):
                await self._wake.wait()
        self._wake.clear()

    def _poll_interval(self) -> float:
        active = self._ours or self.has_active_jobs()
        return self.config.poll_active_s if active else self.config.poll_idle_s

    def has_active_jobs(self) -> bool:
        """Whether any job is pending, queued, running or cancelling."""
        return self.ledger.has_active_jobs()

    def _paused(self) -> bool:
        return bool(self.ledger.settings.get(PAUSED_KEY, False))

    def check_alive(self) -> None:
        """Raise the exception that ended one of the controller's loops, if one did."""
        for task in self._tasks:
            if task.done() and not task.cancelled() and task.exception() is not None:
                raise task.exception()  # type: ignore[misc]

    def _set_connection(self, connection: Connection) -> None:
        if self.status.connection != connection and not (
            connection == Connection.connected and self._backoff.failing
        ):
            self._emit(replace(self.status, connection=connection))

    def _publish(self, snapshot: QueueSnapshot) -> None:
        positions = {item.prompt_id: 0 for item in snapshot.running}
        positions.update({item.prompt_id: i + 1 for i, item in enumerate(snapshot.pending)})
        ours = {self._ours[pid]: place for pid, place in positions.items() if pid in self._ours}
        running = {self._ours[i.prompt_id] for i in snapshot.running if i.prompt_id in self._ours}
        self._progress = {job: p for job, p in self._progress.items() if job in running}
        now = time.time()
        recent = [t for t in self._reconciler.finished_at if now - t <= 60]
        connection = self.status.connection
        if connection in (Connection.connecting, Connection.offline):
            connection = Connection.connected
        self._emit(
            replace(
                self.status,
                connection=connection,
                server_queue=len(snapshot),
                in_flight=len(ours),
                paused=self._paused(),
                positions=ours,
                progress=dict(self._progress),
                recent_durations=tuple(self._reconciler.durations),
                done_per_minute=float(len(recent)),
                last_error="",
            )
        )

    def _emit(self, status: ControllerStatus) -> None:
        if status == self.status:
            return
        self.status = status
        for listener in list(self._listeners):
            try:
                listener(status)
            except Exception:  # a broken observer must not stop the controller
                log.exception("status listener failed")
