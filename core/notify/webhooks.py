"""Each ended batch's webhook, POSTed by a task of its own so that no answer, however slow,
holds the controller up: every try bounded by a timeout, tried again with a growing wait (at
most ``tries`` times), at most ``max_waiting`` waiting (the oldest past that given up, said so).

The ledger is the queue (``BatchNoticeStore.webhooks_pending``): a body waits there until it
was delivered or given up, so a restart sends what was not, and nothing waits only in memory.
A failure is said once (``on_problem``, the controller's status line), not once a try; a
delivery after it clears it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import aiohttp

from core.ledger.batch_notices import GIVEN_UP, PENDING, SENT
from core.notify.webhook_bodies import webhook_request

if TYPE_CHECKING:
    from collections.abc import Callable

    from core.ledger import Ledger

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class WebhookLimits:
    tries: int = 8  # then it is given up (about 10 minutes of waits with the defaults)
    first_wait_s: float = 2.0  # the wait after the first failed try, doubled after each
    max_wait_s: float = 300.0
    timeout_s: float = 10.0  # one try, connecting and answering
    max_waiting: int = 200  # bodies waiting at once; the oldest past it are given up
    idle_s: float = 5.0  # how often the ledger is read while nothing is due


class WebhookSender:
    """Sends the ledger's waiting webhook bodies; ``wake`` when one was added."""

    def __init__(
        self,
        ledger: Ledger,
        limits: WebhookLimits | None = None,
        on_problem: Callable[[str], None] = lambda text: None,
    ) -> None:
        self.ledger = ledger
        self.limits = limits or WebhookLimits()
        self.on_problem = on_problem
        self._due: dict[str, float] = {}  # batch -> when its next try may be (monotonic)
        self._in_flight: set[str] = set()  # batches whose POST awaits its answer
        self._woken = asyncio.Event()
        self._problem = ""

    def wake(self) -> None:
        self._woken.set()

    async def run(self, name: str = "webhooks") -> None:
        """Send for ever (until cancelled)."""
        timeout = aiohttp.ClientTimeout(total=self.limits.timeout_s)
        async with aiohttp.ClientSession(timeout=timeout) as session:
            while True:
                self._woken.clear()
                wait = await self.send_due(session)
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(wait):  # not wait_for: it may swallow a cancel
                        await self._woken.wait()

    async def flush(self) -> None:
        """One round now, on a session of its own, for what no POST is awaiting (the
        controller stopping: its caller bounds the time)."""
        timeout = aiohttp.ClientTimeout(total=self.limits.timeout_s)
        async with aiohttp.ClientSession(timeout=timeout) as session:
            await self.send_due(session)

    async def send_due(self, session: aiohttp.ClientSession) -> float:
        """Try each waiting body whose time has come; how long until the next is due."""
        limits = self.limits
        waiting = self.ledger.notices.webhooks_pending()
        excess = len(waiting) - limits.max_waiting
        for record in waiting[: max(0, excess)]:
            self.ledger.notices.webhook_tried(record.batch_id, GIVEN_UP, "too many waiting")
            self._said(f"Gave up a webhook for batch {record.batch_id}: too many were waiting.")
        now, next_due = time.monotonic(), limits.idle_s
        for record in waiting[max(0, excess) :]:
            due = self._due.get(record.batch_id, 0.0)
            if record.batch_id in self._in_flight:
                continue
            if due > now:
                next_due = min(next_due, due - now)
                continue
            url, template = record.choice.webhook_url, record.choice.webhook_template
            if not url or record.webhook_body is None:
                continue
            request = webhook_request(url, template, json.loads(record.webhook_body))
            self._in_flight.add(record.batch_id)
            try:
                error, again = await _post(session, request.url, request.body)
            finally:
                self._in_flight.discard(record.batch_id)
            title = json.loads(record.webhook_body).get("batch", {}).get("name", record.batch_id)
            if error is None:
                self.ledger.notices.webhook_tried(record.batch_id, SENT, None)
                self._due.pop(record.batch_id, None)
                self._cleared()
                continue
            tries = record.webhook_tries + 1
            if not again or tries >= limits.tries:
                self.ledger.notices.webhook_tried(record.batch_id, GIVEN_UP, error)
                self._due.pop(record.batch_id, None)
                self._said(
                    f"The webhook for {title} failed ({error}); gave up after {tries} tries."
                )
                continue
            self.ledger.notices.webhook_tried(record.batch_id, PENDING, error)
            wait = min(limits.max_wait_s, limits.first_wait_s * 2 ** (tries - 1))
            wait *= random.uniform(0.8, 1.0)
            self._due[record.batch_id] = time.monotonic() + wait
            next_due = min(next_due, wait)
            self._said(f"The webhook for {title} failed ({error}); trying again.")
        return next_due

    def _said(self, text: str) -> None:
        """Tell a failure once a spell: the first one, or one of another kind (given up)."""
        kind = text.split("(")[0] + text.rsplit(";", 1)[-1]
        if kind == self._problem:
            return
        self._problem = kind
        log.info("%s", text)
        self.on_problem(text)

    def _cleared(self) -> None:
        if self._problem:
            self._problem = ""
            log.info("webhooks delivered again")
            self.on_problem("")


async def _post(
    session: aiohttp.ClientSession, url: str, body: dict[str, object]
) -> tuple[str | None, bool]:
    """POST ``body``: (None, _) when delivered, else (why, whether trying again may help)."""
    try:
        async with session.post(url, json=body, allow_redirects=False) as answer:
            await answer.read()
            if 200 <= answer.status < 300:
                return None, True
            again = answer.status >= 500 or answer.status in (408, 425, 429)
            return f"it answered {answer.status}", again
    except TimeoutError:
        return "no answer in time", True
    except aiohttp.ClientConnectionError as exc:
        return f"could not connect: {exc}" if str(exc) else "could not connect", True
    except aiohttp.ClientError as exc:
        return str(exc) or type(exc).__name__, True
