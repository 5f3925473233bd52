"""The controller's watch on batch ends: it reads the change feed, and for each batch whose jobs
have all ended takes its end in the ledger (``BatchNoticeStore.take_end``: once, whichever
controller or restart sees it), shows it on the desktop (unless turned off: globally,
`NOTIFY_DESKTOP`, or for the batch) and hands its webhook to the sender. A batch needs
attention, said once for each cause: its jobs wait while sending is paused, or nothing of it
runs and its jobs wait for what no server has (a model: ``why_waiting``, the controller's
placing, for ``WAITS_FOR_S`` at least).

Where the feed was read up to is kept in the ledger (``BatchNoticeStore.read_to``): a
controller started again reads on from there, so a batch that ended just before a crash is
still told.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import TYPE_CHECKING

from core.batch.batch_counts import BatchCounts
from core.batch.batch_title import batch_title
from core.job_state import JobState
from core.ledger.settings import NOTIFY_DESKTOP, PAUSED
from core.notify.desktop import DesktopNotices
from core.notify.messages import BatchNews, EndState, end_of
from core.notify.webhooks import WebhookLimits, WebhookSender

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from core.ledger import JobRecord, Ledger

log = logging.getLogger(__name__)

POLL_S = 0.25
FEED_PAGE = 5000
WAITS_FOR_S = 10.0  # a batch whose jobs wait this long for what no server has needs attention
LOOK_AGAIN_S = 2.0  # how often a batch whose jobs all wait is looked at again
MAX_WATCHED = 200  # batches looked at again at once (the newest touched)


class BatchNotifier:
    """Tells each batch's end (and its need of attention) once; ``run`` and
    ``webhooks.run`` are two of the controller's loops."""

    def __init__(
        self,
        ledger: Ledger,
        output_dir: Path,
        *,
        desktop: DesktopNotices | None = None,
        webhook_limits: WebhookLimits | None = None,
        on_problem: Callable[[str], None] = lambda text: None,
        why_waiting: Callable[[list[JobRecord]], list[str]] | None = None,
    ) -> None:
        """``why_waiting``: why each pending job waits ("no server has X"; "" when some server
        can run it), from the controller's placing (the servers read once for them all)."""
        self.ledger = ledger
        self.why_waiting = why_waiting
        # batch -> (when to look again, since when its jobs wait for the same want, that want)
        self._watched: dict[str, tuple[float, float | None, str]] = {}
        self.output_dir = output_dir
        self.desktop = desktop or DesktopNotices()
        self.webhooks = WebhookSender(ledger, webhook_limits, on_problem)
        self._seq: int | None = None
        self._paused = False

    async def run(self, name: str = "batch notices") -> None:
        while True:
            await self.step()
            await asyncio.sleep(POLL_S)

    def begin(self) -> None:
        """Read the feed from where it was read last (the first time: from now on, the batches
        already over are not told). Called as the controller starts, before any command."""
        stored = self.ledger.notices.read_up_to()
        self._seq = self.ledger.latest_seq() if stored is None else stored

    async def step(self) -> None:
        """Read the feed on from where it was read, and tell what ended there."""
        if self._seq is None:
            self.begin()
        assert self._seq is not None
        jobs, seq = self.ledger.changes_since(self._seq, FEED_PAGE)
        touched = list(dict.fromkeys(job.batch for job in jobs))
        for batch_id in touched:
            await self._ended(batch_id)
        await self._waiting_ones()
        paused = PAUSED.get(self.ledger)
        if paused and not self._paused:
            await self._paused_batches()
        self._paused = paused
        if seq != self._seq:
            self._seq = seq
            self.ledger.notices.read_to(seq)

    async def _ended(self, batch_id: str) -> None:
        counts = BatchCounts.read(self.ledger, batch_id)
        end = end_of(counts)
        if end is None:
            if self.why_waiting is not None and batch_id not in self._watched:
                self._watched[batch_id] = (0.0, None, "")
                while len(self._watched) > MAX_WATCHED:
                    del self._watched[next(iter(self._watched))]
            return
        self._watched.pop(batch_id, None)
        news = self._news(batch_id, end, counts)
        record = self.ledger.notices.take_end(batch_id, end.value, json.dumps(news.to_json()))
        if record is None:
            return  # told already
        await self._show(news, record.choice.desktop)
        if record.webhook_state is not None:
            self.webhooks.wake()

    async def _waiting_ones(self) -> None:
        """Look again at the batches whose jobs may all be waiting for what no server has."""
        now = time.monotonic()
        if self.why_waiting is None or not any(due <= now for due, _, _ in self._watched.values()):
            return
        looked: list[tuple[str, dict[JobState, int], JobRecord]] = []
        for batch_id, (due, _, _) in list(self._watched.items()):
            if due > now:
                continue
            counts = self.ledger.count_by_state(batch=batch_id)
            moving = counts.get(JobState.running, 0) + counts.get(JobState.queued, 0)
            first = self.ledger.jobs(batch=batch_id, states=[JobState.pending], limit=1)
            if moving or not first:  # it runs (a change will be read), or it has ended
                del self._watched[batch_id]
                continue
            looked.append((batch_id, counts, first[0]))
        paused = PAUSED.get(self.ledger)
        wants = self.why_waiting([job for _, _, job in looked]) if looked else []
        for (batch_id, counts, _), why in zip(looked, wants, strict=True):
            _, since, said = self._watched[batch_id]
            if not why or paused:
                self._watched[batch_id] = (now + LOOK_AGAIN_S, None, "")
                continue
            if since is None or why != said:  # the same want, WAITS_FOR_S long
                self._watched[batch_id] = (now + LOOK_AGAIN_S, now, why)
                continue
            if now - since < WAITS_FOR_S:
                self._watched[batch_id] = (now + LOOK_AGAIN_S, since, why)
                continue
            del self._watched[batch_id]
            if self.ledger.notices.take_attention(batch_id, "waits"):
                news = self._news(
                    batch_id, EndState.attention, BatchCounts.of_states(counts), why=why
                )
                await self._show(news, self.ledger.notices.get(batch_id).choice.desktop)

    async def _paused_batches(self) -> None:
        """Sending was paused: each batch with jobs still waiting needs attention."""
        waiting = self.ledger.job_ids(states=[JobState.pending, JobState.queued])
        batches = {self.ledger.job(job_id).batch for job_id in waiting[:1000]}
        for batch_id in sorted(batches):
            if not self.ledger.notices.take_attention(batch_id, "paused"):
                continue
            counts = BatchCounts.read(self.ledger, batch_id)
            news = self._news(batch_id, EndState.attention, counts, why="paused")
            await self._show(news, self.ledger.notices.get(batch_id).choice.desktop)

    def _news(
        self, batch_id: str, state: EndState, counts: BatchCounts, why: str = ""
    ) -> BatchNews:
        title = batch_title(self.ledger, self.ledger.batch(batch_id))
        folder = (self.output_dir / batch_id).absolute()
        return BatchNews(batch_id, title, state, counts, time.time(), folder, why)

    async def _show(self, news: BatchNews, wanted: bool) -> None:
        if not (wanted and NOTIFY_DESKTOP.get(self.ledger)):
            how = "off"
        else:
            how = await self.desktop.send(news.heading, news.text)
        if news.state is not EndState.attention:
            self.ledger.notices.said_on_desktop(news.batch_id, how)
