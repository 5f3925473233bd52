"""The controller's watch on batch ends: it reads the change feed, and for each batch whose jobs
have all ended takes its end in the ledger (``BatchNoticeStore.take_end``: once, whichever
controller or restart sees it), shows it on the desktop (unless turned off: globally,
`NOTIFY_DESKTOP`, or for the batch) and hands its webhook to the sender. A batch with jobs
waiting while sending is paused needs attention, said once.

Where the feed was read up to is kept in the ledger (``notify.seen_seq``): a controller started
again reads on from there, so a batch that ended just before a crash is still told.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import TYPE_CHECKING

from core.job_state import JobState
from core.ledger.settings import NOTIFY_DESKTOP, PAUSED
from core.notify.desktop import DesktopNotices
from core.notify.messages import BatchNews, Counts, EndState, batch_title
from core.notify.webhooks import WebhookLimits, WebhookSender

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from core.ledger import Ledger

log = logging.getLogger(__name__)

SEEN_SEQ = "notify.seen_seq"
POLL_S = 0.25
FEED_PAGE = 5000


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
    ) -> None:
        self.ledger = ledger
        self.output_dir = output_dir
        self.desktop = desktop or DesktopNotices()
        self.webhooks = WebhookSender(ledger, webhook_limits, on_problem)
        self._seq: int | None = None
        self._paused = False

    async def run(self, name: str = "batch notices") -> None:
        while True:
            await self.step()
            await asyncio.sleep(POLL_S)

    async def step(self) -> None:
        """Read the feed on from where it was read, and tell what ended there."""
        if self._seq is None:
            stored = self.ledger.settings.get(SEEN_SEQ)
            self._seq = stored if isinstance(stored, int) else self.ledger.latest_seq()
        jobs, seq = self.ledger.changes_since(self._seq, FEED_PAGE)
        touched = list(dict.fromkeys(job.batch for job in jobs))
        for batch_id in touched:
            await self._ended(batch_id)
        paused = PAUSED.get(self.ledger)
        if paused and not self._paused:
            await self._paused_batches()
        self._paused = paused
        if seq != self._seq:
            self._seq = seq
            self.ledger.settings.set(SEEN_SEQ, seq)

    async def _ended(self, batch_id: str) -> None:
        counts = Counts.of_states(self.ledger.count_by_state(batch=batch_id))
        end = counts.end
        if end is None:
            return
        news = self._news(batch_id, end, counts)
        record = self.ledger.notices.take_end(batch_id, end.value, json.dumps(news.to_json()))
        if record is None:
            return  # told already
        await self._show(news, record.choice.desktop)
        if record.webhook_state is not None:
            self.webhooks.wake()

    async def _paused_batches(self) -> None:
        """Sending was paused: each batch with jobs still waiting needs attention."""
        waiting = self.ledger.job_ids(states=[JobState.pending, JobState.queued])
        batches = {self.ledger.job(job_id).batch for job_id in waiting[:1000]}
        for batch_id in sorted(batches):
            if not self.ledger.notices.take_attention(batch_id, "paused"):
                continue
            counts = Counts.of_states(self.ledger.count_by_state(batch=batch_id))
            news = self._news(batch_id, EndState.attention, counts, why="paused")
            await self._show(news, self.ledger.notices.get(batch_id).choice.desktop)

    def _news(self, batch_id: str, state: EndState, counts: Counts, why: str = "") -> BatchNews:
        title = batch_title(self.ledger.batch(batch_id))
        folder = (self.output_dir / batch_id).absolute()
        return BatchNews(batch_id, title, state, counts, time.time(), folder, why)

    async def _show(self, news: BatchNews, wanted: bool) -> None:
        if not (wanted and NOTIFY_DESKTOP.get(self.ledger)):
            how = "off"
        else:
            how = await self.desktop.send(news.heading, news.text)
        if news.state is not EndState.attention:
            self.ledger.notices.said_on_desktop(news.batch_id, how)
