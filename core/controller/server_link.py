"""One ComfyUI server as the controller drives it: its client, our prompts there, its status.

The controller holds one link per configured server. Each link ticks on its own: it reads its
server's queue, follows the attempts sent to that server (and only those: another server
cannot know them), and submits pending jobs into its own room. Links share the ledger's
pending jobs: ``submit_attempt`` takes a job atomically, so two links never send the same one.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from core.comfy import (
    Backoff,
    ExecutionError,
    ExecutionInterrupted,
    ExecutionStart,
    ExecutionSuccess,
    PreviewImage,
    Progress,
    Reconnected,
    Status,
)
from core.comfy import Connected as WsConnected
from core.comfy import Disconnected as WsDisconnected
from core.comfy.http_errors import plain_reason
from core.controller.dispatch import Dispatcher
from core.controller.fleet import Fleet
from core.controller.orphans import Orphans
from core.controller.picture_uploads import PictureUploads
from core.controller.previews import PreviewFiles
from core.controller.reconcile import Reconciler
from core.controller.server_state import ServerState
from core.controller.status import Connection, ServerStatus
from core.controller.status import Progress as JobProgress
from core.errors import TransientComfyError
from core.job_state import AttemptResult, JobState
from core.placement.server_offer import offer_from_object_info

MIN_TICK_GAP_S = 0.02  # the shortest time between the starts of two ticks of one server

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable
    from pathlib import Path

    from core.comfy import ComfyClient, Event, QueueSnapshot
    from core.ledger import AttemptRecord, Ledger
    from core.ledger.settings import ControllerConfig
    from core.placement.server_offer import ServerOffer


class ServerLink:
    """The controller's conversation with one server.

    ``changed`` is called (with no argument) whenever ``status`` is replaced.
    """

    def __init__(
        self,
        ledger: Ledger,
        client: ComfyClient,
        config: ControllerConfig,
        output_dir: Path,
        changed: Callable[[], None],
        fleet: Fleet | None = None,
    ) -> None:
        self.ledger, self.client, self.url = ledger, client, client.base_url
        self.server = ServerState.of(ledger, self.url)
        self.fleet = fleet or Fleet(ledger)
        self.fleet.add(self.server)
        pictures = PictureUploads(ledger, client, self.server)  # both learn what it lost
        self.reconciler = Reconciler(ledger, client, config, output_dir, self.server, pictures)
        self.dispatcher = Dispatcher(ledger, client, config, self.server, self.fleet, pictures)
        self.orphans = Orphans(ledger, client, config.max_pictures_per_job)
        self.previews = PreviewFiles(ledger.folder)
        first, longest = config.offline_first_s, config.offline_max_s
        self.backoff = Backoff(initial=first, cap=max(first, longest))
        self.status = ServerStatus(server=self.url)
        self._changed = changed
        self._wake = asyncio.Event()
        self._refill = False
        self._tick_began = 0.0
        self._unstored: ServerOffer | None = None  # read, not stored in the ledger yet

    # --- one round -------------------------------------------------------------------------------

    async def tick(
        self, live: list[AttemptRecord], paused: bool, models_asked: float = 0.0
    ) -> None:
        """Read the queue, then admit and submit while following ``live`` (this server's
        attempts). Its offer is read first when it may have restarted since it was last read,
        or when the artist asked at ``models_asked`` (the ledger's clock) since."""
        self._tick_began = time.monotonic()
        server = self.server
        snapshot = await self.client.queue()
        if self.backoff.failing:
            server.may_have_restarted()
        self.backoff.reset()
        server.answering = True
        if not server.offer_fresh or models_asked > server.offer_read_at:
            await self.read_offer()
        server.ours = {a.prompt_id: a.job_id for a in live}
        # Refill and follow at once: our prompts gone from the queue hold no room there,
        # whatever their outcome (read meanwhile, downloads and all), and the server takes the
        # new ones while those downloads run. Sent ones are ours from before their POST: the
        # event of one finishing refills at once. A full output folder sends nothing more.
        left = [a.prompt_id for a in live if a.result != AttemptResult.submitting]
        left = [pid for pid in left if snapshot.place_of(pid) is None]
        sending = None
        if not server.output_full:
            sending = self.dispatcher.dispatch(snapshot, paused=paused, left=left)
        try:
            missed = await _both(self._follow(live, snapshot), sending)
        finally:
            # The POST answers, what the queue, the history and the socket said: one sync.
            server.held.commit()
        self._store_offer()
        await self.orphans.sweep(snapshot, server.ours.keys(), missed)
        await self.orphans.watch(self.url, missed)
        stalled = frozenset(a.job_id for a in live if a.stalled)
        self._publish(snapshot, stalled, str(missed[-1]) if missed else "")

    async def read_offer(self) -> None:
        """Read what the server can run (its /object_info) and keep it: on (re)connect, on
        request, after a refusal for a model. It is stored in the ledger for every process
        once the tick has read the ledger whole (``_store_offer``): never the first write to
        a ledger damaged where it reads."""
        info = await self.client.object_info()
        offer = await asyncio.to_thread(offer_from_object_info, info)  # MBs: off the loop
        server = self.server
        server.offer, server.offer_epoch = offer, server.epoch
        server.offer_read_at = self.ledger.handle.now()
        self._unstored = offer

    def _store_offer(self) -> None:
        if self._unstored is not None:
            self.ledger.server_offers.store(self.url, self._unstored)
            self._unstored = None

    async def _follow(
        self, live: list[AttemptRecord], snapshot: QueueSnapshot
    ) -> list[TransientComfyError]:
        """Follow ``live`` (not those sent this tick: they are not in the snapshot); returns
        the server's errors of those that could not be followed now (next time)."""
        cancelling = self._cancelling(live)
        missed: list[TransientComfyError] = []
        for attempt in live:
            try:
                await self.reconciler.follow(attempt, attempt.job_id in cancelling, snapshot)
            except TransientComfyError as exc:  # this one next time; the others go on now
                missed.append(exc)
        await self.reconciler.record_successes(missed)
        return missed

    def _cancelling(self, live: list[AttemptRecord]) -> set[str]:
        """The jobs of ``live`` that are being cancelled: one query, not a read per job."""
        if not live:
            return set()
        among = [attempt.job_id for attempt in live]
        return set(self.ledger.job_ids(states=[JobState.cancelling], among=among))

    def _publish(self, snapshot: QueueSnapshot, stalled: frozenset[str], error: str) -> None:
        """The server answered this tick (``error``: a request of it that failed all the same)."""
        places = {item.prompt_id: 0 for item in snapshot.running}
        places.update({item.prompt_id: i + 1 for i, item in enumerate(snapshot.pending)})
        ours = self.server.ours
        positions = {ours[pid]: place for pid, place in places.items() if pid in ours}
        running = {job for job, place in positions.items() if place == 0}
        connection = self.status.connection
        if connection in (Connection.connecting, Connection.offline):
            connection = Connection.connected
        self.previews.keep_only(running)
        self._set(
            connection=connection,
            queue=len(snapshot),
            positions=positions,
            progress={j: p for j, p in self.status.progress.items() if j in running},
            previews=dict(self.previews.counts),
            stalled=stalled & running,
            last_error=error,
            queue_depth=self.server.queue_depth,
        )

    def went_offline(self, exc: Exception) -> tuple[bool, float]:
        """Whether this is news (the first failure), and how long to wait before trying again."""
        first = not self.backoff.failing
        delay = self.backoff.next_delay()
        self.server.answering = False
        plain = plain_reason(exc)  # what the artist reads first: "nothing listens on that port"
        error = f"{plain}: {exc}" if plain else str(exc)
        self._set(connection=Connection.offline, last_error=error)
        return first, delay

    # --- WebSocket events ------------------------------------------------------------------------

    def on_event(self, event: Event, skipped: int = 0) -> None:
        """One WebSocket event, read after the listener had skipped ``skipped`` messages."""
        self.server.socket.see(event, skipped)
        match event:
            case WsConnected():
                self._set_connection(Connection.connected)
            case Reconnected():
                self.server.may_have_restarted()
                self._set_connection(Connection.connected)
                self.wake()
            case WsDisconnected():
                # The session dropped: the server may be restarting, and prompts that vanish
                # from now on count as lost (retried), not as removed by someone else.
                self.server.may_have_restarted()
                self._set_connection(Connection.reconnecting)
            case ExecutionStart(prompt_id=pid) if (
                pid in self.server.ours and pid not in self.server.posting
            ):
                # Written by the next tick, soon, with what else it writes (offline: when the
                # backoff lets the next one run). Before its POST's answer (held after this),
                # it would keep the answer's queue number and warning out: the next tick's
                # queue shows it running then.
                self.server.hold(self.ledger.observe_running, pid)
                if not self.backoff.failing:
                    self.wake()
            case Progress(prompt_id=pid, value=value, max=most) if pid in self.server.ours:
                progress = dict(self.status.progress)
                progress[self.server.ours[pid]] = JobProgress(int(value), int(most))
                self._set(progress=progress)
            case PreviewImage() as preview:
                self._preview(preview)
            case (
                ExecutionSuccess(prompt_id=pid)
                | ExecutionError(prompt_id=pid)
                | ExecutionInterrupted(prompt_id=pid)
            ) if pid in self.server.ours and not self.backoff.failing:
                self.wake(refill=True)  # one of ours left the queue: the next goes in now
            case ExecutionSuccess() | ExecutionError() | ExecutionInterrupted() | Status():
                if not self.backoff.failing:  # offline: the backoff paces the next try
                    self.wake()

    def _preview(self, preview: PreviewImage) -> None:
        """Keep a preview of one of our running jobs: the prompt it names, or (a server that
        does not name it) the one of ours running here."""
        if preview.prompt_id is not None:
            job = self.server.ours.get(preview.prompt_id)
        else:
            running = [job for job, place in self.status.positions.items() if place == 0]
            job = running[0] if len(running) == 1 else None
        if job is not None and self.previews.save(job, preview):
            self._set(previews=dict(self.previews.counts))

    # --- pacing ----------------------------------------------------------------------------------

    def wake(self, *, refill: bool = False) -> None:
        """Run the next tick now; ``refill``: one of our prompts ended, so the server has room
        (not held back by ``MIN_TICK_GAP_S``: such events come no faster than we send)."""
        self._refill = self._refill or refill
        self._wake.set()

    async def sleep(self, delay: float) -> None:
        """Wait ``delay`` seconds, or less if woken (but at least ``MIN_TICK_GAP_S`` after the
        last tick began unless woken to refill: a server sending events nonstop cannot make
        ticks run nonstop)."""
        # asyncio.timeout, not wait_for: on Python 3.11 wait_for can swallow a cancellation that
        # lands as the event fires (gh-86296), and stop() would then wait for this loop forever.
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(delay):
                await self._wake.wait()
        self._wake.clear()
        refill, self._refill = self._refill, False
        rest = 0.0 if refill else MIN_TICK_GAP_S - (time.monotonic() - self._tick_began)
        if rest > 0:
            await asyncio.sleep(rest)

    def recent_finishes(self, now: float, window: float = 60.0) -> int:
        return sum(1 for t in self.server.finished_at if now - t <= window)

    # --- status ----------------------------------------------------------------------------------

    def _set_connection(self, connection: Connection) -> None:
        if connection == Connection.connected and self.backoff.failing:
            return  # HTTP still fails: stay offline until a tick succeeds
        self._set(connection=connection)

    def _set(self, **changes: Any) -> None:
        status = replace(self.status, **changes)
        if status != self.status:
            self.status = status
            self._changed()


async def _both(
    follow: Awaitable[list[TransientComfyError]], sending: Awaitable[None] | None
) -> list[TransientComfyError]:
    """Run both to the end (neither stops the other halfway), then raise the sending's error
    before the following's; returns what ``follow`` returns."""
    if sending is None:
        return await follow
    missed, sent = await asyncio.gather(follow, sending, return_exceptions=True)
    if isinstance(sent, BaseException):
        raise sent
    if isinstance(missed, BaseException):
        raise missed
    return missed
