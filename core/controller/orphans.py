"""Prompts of ours that the ledger no longer follows: withdrawn from the server, or adopted.

A submission whose answer never came may reach ComfyUI's queue long after the controller gave
up on it and opened a new attempt (ComfyUI validates, then queues, then answers). Two duties
follow, both on each tick of one server:

- **The sweep**: a prompt in the server's queue that carries this ledger's mark but whose
  attempt the ledger holds as ended (or does not know) is withdrawn: deleted while it waits,
  interrupted (targeted) while it runs. Other clients' and other ledgers' prompts are left alone.
- **Late successes**: an attempt given up that way stays watched while its job is active; if
  its prompt turns up in history as a success, its outputs are the job's (recorded, then
  fetched by the link's next tick) and the newer attempt is withdrawn (``superseded``).
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from core.batch.prompt import ledger_id
from core.controller.outputs import output_refs
from core.errors import TransientComfyError
from core.job_state import Reason

if TYPE_CHECKING:
    from collections.abc import Collection

    from core.comfy import ComfyClient, QueueItem, QueueSnapshot
    from core.ledger import AttemptRecord, Ledger

log = logging.getLogger(__name__)

WITHDRAW_RESEND_S = 2.0  # a withdrawal is repeated while the prompt is still in the queue
# The causes of an unknown outcome: an attempt given up for one of these may still arrive.
UNKNOWN_OUTCOMES = (Reason.timeout.value, Reason.server_error.value, Reason.connection_error.value)


class Orphans:
    """The sweep and the watch over late answers, for one server's link."""

    def __init__(self, ledger: Ledger, client: ComfyClient, max_pictures: int) -> None:
        self._ledger, self._client = ledger, client
        self._max_pictures = max_pictures
        self._mark: str | None = None  # this ledger's id, once it has sent anything
        self._withdrawn: dict[str, float] = {}
        self._done: set[str] = set()  # watched prompts whose history showed no success

    async def sweep(
        self, snapshot: QueueSnapshot, followed: Collection[str], missed: list[TransientComfyError]
    ) -> None:
        """Withdraw each marked prompt in ``snapshot`` whose attempt is not live.

        ``followed``: the prompt_ids this link follows (live at the tick's start); a request
        that fails is added to ``missed`` and tried again next time.
        """
        self._mark = self._mark or ledger_id(self._ledger, create=False)
        items = (*snapshot.running, *snapshot.pending)
        for item in items:
            if self._mark is None or item.ledger != self._mark or item.prompt_id in followed:
                continue
            attempt = self._ledger.attempt(item.prompt_id)
            if attempt is not None and self._is_live(attempt):
                continue  # live, followed by another link (the server setting changed)
            try:
                await self._withdraw(item, snapshot, attempt)
            except TransientComfyError as exc:
                missed.append(exc)
        queued = {item.prompt_id for item in items}
        self._withdrawn = {p: t for p, t in self._withdrawn.items() if p in queued}

    async def watch(self, server: str, missed: list[TransientComfyError]) -> None:
        """Look for late successes of the attempts given up on ``server``; a request that
        fails is added to ``missed`` and that attempt looked at again next time."""
        watched = [
            attempt
            for attempt in self._ledger.unsettled_attempts(UNKNOWN_OUTCOMES)
            if attempt.server == server
        ]
        self._done &= {attempt.prompt_id for attempt in watched}
        for attempt in watched:
            if attempt.prompt_id in self._done:
                continue
            try:
                await self._look_for(attempt)
            except TransientComfyError as exc:
                missed.append(exc)

    async def _look_for(self, attempt: AttemptRecord) -> None:
        entry = await self._client.history(attempt.prompt_id)
        if entry is None:
            return
        if not entry.succeeded:
            self._done.add(attempt.prompt_id)
            return
        refs, note = output_refs(entry, self._max_pictures)
        times = (entry.started_at, entry.finished_at)
        # At once (server_state.py says why); the link's next tick fetches its pictures.
        if self._ledger.observe_late_success(attempt.prompt_id, refs, note, times):
            log.warning(
                "job %s: attempt %d (%s), given up, succeeded after all: its pictures are kept "
                "and the newer attempt is withdrawn",
                attempt.job_id,
                attempt.n,
                attempt.prompt_id,
            )

    def _is_live(self, attempt: AttemptRecord) -> bool:
        job = self._ledger.job(attempt.job_id)
        return attempt.n == job.attempt and not attempt.is_final and job.state.is_active

    async def _withdraw(
        self, item: QueueItem, snapshot: QueueSnapshot, attempt: AttemptRecord | None
    ) -> None:
        pid, now = item.prompt_id, time.monotonic()
        if now - self._withdrawn.get(pid, -WITHDRAW_RESEND_S) < WITHDRAW_RESEND_S:
            return
        self._withdrawn[pid] = now
        where = snapshot.place_of(pid)
        whose = (
            f"job {attempt.job_id} attempt {attempt.n}, {attempt.result}"
            if attempt is not None
            else "unknown to this ledger"
        )
        log.warning("withdrawing prompt %s (%s) that arrived late: it is %s", pid, whose, where)
        if where == "running":
            await self._client.interrupt(pid)
        else:
            await self._client.delete(pid)
