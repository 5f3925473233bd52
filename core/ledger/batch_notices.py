"""What a batch's end tells the artist, kept in the ledger: each batch's own choices (its
desktop notification on or off, its webhook), and once its end was seen, that it was announced
and how its webhook went. The end is taken in one transaction (``take_end``): of two
controllers, or a controller and its restart, only one announces a batch."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.ledger import schema

if TYPE_CHECKING:
    from core.ledger.handle import LedgerHandle

READ_KEY = "notices_read"  # the Counter row of where the notices read the change feed to
PENDING = "pending"  # a webhook body waits to be sent (or sent again)
SENT = "sent"
GIVEN_UP = "given_up"


@dataclass(frozen=True, slots=True)
class NoticeChoice:
    """A batch's own choices: the desktop notification, a webhook (None: none)."""

    desktop: bool = True
    webhook_url: str | None = None
    webhook_template: str = "json"


@dataclass(frozen=True, slots=True)
class NoticeRecord:
    """A batch's notice row as stored (see ``schema.BatchNotice``)."""

    batch_id: str
    choice: NoticeChoice
    ended_at: float | None
    ended_state: str | None
    desktop_how: str | None
    attention: frozenset[str]
    webhook_state: str | None
    webhook_body: str | None
    webhook_tries: int
    webhook_error: str | None


class BatchNoticeStore:
    """Read and write the batches' notices, one row per batch that has one."""

    def __init__(self, handle: LedgerHandle) -> None:
        self._handle = handle

    def choose(self, batch_id: str, choice: NoticeChoice) -> None:
        """Keep ``choice`` as the batch's (in the caller's transaction when there is one)."""
        with self._handle.tx():
            schema.BatchNotice.insert(
                batch=batch_id,
                desktop=choice.desktop,
                webhook_url=choice.webhook_url,
                webhook_template=choice.webhook_template,
            ).on_conflict(
                conflict_target=[schema.BatchNotice.batch],
                update={
                    schema.BatchNotice.desktop: choice.desktop,
                    schema.BatchNotice.webhook_url: choice.webhook_url,
                    schema.BatchNotice.webhook_template: choice.webhook_template,
                },
            ).execute()

    def get(self, batch_id: str) -> NoticeRecord:
        """The batch's notice (the defaults when it has no row)."""
        with self._handle.read():
            row = schema.BatchNotice.get_or_none(schema.BatchNotice.batch == batch_id)
        return _record(row) if row is not None else _default(batch_id)

    def read_up_to(self) -> int | None:
        """Where the controller's notices read the change feed to (None: never)."""
        with self._handle.read():
            row = schema.Counter.get_or_none(schema.Counter.key == READ_KEY)
        return None if row is None else int(row.value)

    def read_to(self, seq: int) -> None:
        """The notices read the change feed up to ``seq``. Kept among the counters, not the
        settings: a write to the settings' page would hide the ledger's id from ``watch``'s
        look at a file overwritten in place (the id page would be read from our WAL)."""
        with self._handle.tx():
            schema.Counter.insert(key=READ_KEY, value=seq).on_conflict_replace().execute()

    def take_end(self, batch_id: str, state: str, webhook_body: str | None) -> NoticeRecord | None:
        """Record that the batch ended in ``state`` and is being announced: its notice, or None
        when it was taken already (announced by this or another controller). A batch with a
        webhook keeps ``webhook_body`` to send, pending."""
        with self._handle.tx():
            row = schema.BatchNotice.get_or_none(schema.BatchNotice.batch == batch_id)
            if row is None:
                row = schema.BatchNotice.create(batch=batch_id)
            elif row.ended_at is not None:
                return None
            row.ended_at = self._handle.now()
            row.ended_state = state
            if row.webhook_url and webhook_body is not None:
                row.webhook_state, row.webhook_body = PENDING, webhook_body
            row.save()
            return _record(row)

    def take_attention(self, batch_id: str, kind: str) -> bool:
        """Record that the batch needs attention for ``kind`` ("paused"); False when that was
        said already (each kind is said once a batch), or the batch has ended."""
        with self._handle.tx():
            row = schema.BatchNotice.get_or_none(schema.BatchNotice.batch == batch_id)
            if row is None:
                row = schema.BatchNotice.create(batch=batch_id)
            kinds = _kinds(row.attention)
            if row.ended_at is not None or kind in kinds:
                return False
            row.attention = ",".join(sorted({*kinds, kind}))
            row.save()
            return True

    def said_on_desktop(self, batch_id: str, how: str) -> None:
        """How the desktop notification went: "sent", "no_server", "off", "tray"."""
        with self._handle.tx():
            schema.BatchNotice.update(desktop_how=how).where(
                schema.BatchNotice.batch == batch_id
            ).execute()

    def take_tray(self) -> list[NoticeRecord]:
        """The ended batches no notification server showed (``no_server``), now the tray's to
        show: each is given once (a window that takes them shows them). Read first: a window
        asks every second, and a write would take the ledger's write lock each time."""
        unshown = schema.BatchNotice.desktop_how == "no_server"
        with self._handle.read():
            if not schema.BatchNotice.select().where(unshown).exists():
                return []
        with self._handle.tx():
            rows = list(schema.BatchNotice.select().where(unshown))
            if rows:
                schema.BatchNotice.update(desktop_how="tray").where(
                    schema.BatchNotice.batch.in_([row.batch_id for row in rows])
                ).execute()
        return [_record(row) for row in rows]

    def webhooks_pending(self) -> list[NoticeRecord]:
        """The webhook bodies not yet delivered nor given up (a restart sends them)."""
        with self._handle.read():
            query = schema.BatchNotice.select().where(schema.BatchNotice.webhook_state == PENDING)
            return [_record(row) for row in query.order_by(schema.BatchNotice.ended_at)]

    def webhook_tried(self, batch_id: str, state: str, error: str | None) -> None:
        """One try of the batch's webhook: ``state`` after it (pending, sent, given up)."""
        with self._handle.tx():
            schema.BatchNotice.update(
                webhook_state=state,
                webhook_tries=schema.BatchNotice.webhook_tries + 1,
                webhook_error=error,
            ).where(schema.BatchNotice.batch == batch_id).execute()


def _kinds(text: str) -> set[str]:
    return {kind for kind in text.split(",") if kind}


def _default(batch_id: str) -> NoticeRecord:
    return NoticeRecord(
        batch_id, NoticeChoice(), None, None, None, frozenset(), None, None, 0, None
    )


def _record(row: schema.BatchNotice) -> NoticeRecord:
    return NoticeRecord(
        batch_id=row.batch_id,
        choice=NoticeChoice(row.desktop, row.webhook_url, row.webhook_template),
        ended_at=row.ended_at,
        ended_state=row.ended_state,
        desktop_how=row.desktop_how,
        attention=frozenset(_kinds(row.attention)),
        webhook_state=row.webhook_state,
        webhook_body=row.webhook_body,
        webhook_tries=row.webhook_tries,
        webhook_error=row.webhook_error,
    )
