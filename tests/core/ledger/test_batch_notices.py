"""A batch's notice in the ledger: its choices, its end taken once, the tray's share once, the
webhook's tries."""

from __future__ import annotations

from core.ledger import Ledger, NewJob
from core.ledger.batch_notices import GIVEN_UP, PENDING, SENT, NoticeChoice


def _batch(ledger: Ledger) -> str:
    return ledger.create_batch("demo", [NewJob({})], requester="alice")[0].id


def test_a_batch_without_a_row_has_the_defaults(ledger: Ledger) -> None:
    notice = ledger.notices.get(_batch(ledger))
    assert notice.choice == NoticeChoice(desktop=True, webhook_url=None, webhook_template="json")
    assert (notice.ended_at, notice.desktop_how, notice.webhook_state) == (None, None, None)


def test_an_end_is_taken_once_and_a_webhook_waits_with_its_body(ledger: Ledger) -> None:
    batch = _batch(ledger)
    ledger.notices.choose(batch, NoticeChoice(False, "https://example.org/h", "slack"))
    taken = ledger.notices.take_end(batch, "finished", '{"a": 1}')
    assert taken is not None
    assert taken.choice == NoticeChoice(False, "https://example.org/h", "slack")
    assert (taken.ended_state, taken.webhook_state, taken.webhook_body) == (
        "finished",
        PENDING,
        '{"a": 1}',
    )
    assert ledger.notices.take_end(batch, "finished", '{"a": 1}') is None
    assert [n.batch_id for n in ledger.notices.webhooks_pending()] == [batch]
    ledger.notices.webhook_tried(batch, PENDING, "it answered 503")
    ledger.notices.webhook_tried(batch, SENT, None)
    notice = ledger.notices.get(batch)
    assert (notice.webhook_state, notice.webhook_tries, notice.webhook_error) == (SENT, 2, None)
    assert ledger.notices.webhooks_pending() == []


def test_without_a_webhook_nothing_waits(ledger: Ledger) -> None:
    batch = _batch(ledger)
    taken = ledger.notices.take_end(batch, "failed", "{}")
    assert taken is not None
    assert taken.webhook_state is None
    assert ledger.notices.webhooks_pending() == []
    ledger.notices.webhook_tried(batch, GIVEN_UP, "x")  # a row without a webhook: harmless


def test_the_tray_takes_what_no_notification_server_showed_once(ledger: Ledger) -> None:
    shown, unshown = _batch(ledger), _batch(ledger)
    for batch in (shown, unshown):
        ledger.notices.take_end(batch, "finished", None)
    ledger.notices.said_on_desktop(shown, "sent")
    ledger.notices.said_on_desktop(unshown, "no_server")
    assert [n.batch_id for n in ledger.notices.take_tray()] == [unshown]
    assert ledger.notices.take_tray() == []
    assert ledger.notices.get(unshown).desktop_how == "tray"


def test_each_attention_is_said_once_and_none_after_the_end(ledger: Ledger) -> None:
    batch = _batch(ledger)
    assert ledger.notices.take_attention(batch, "paused")
    assert not ledger.notices.take_attention(batch, "paused")
    assert ledger.notices.take_attention(batch, "model")
    assert ledger.notices.get(batch).attention == {"paused", "model"}
    ledger.notices.take_end(batch, "finished", None)
    assert not ledger.notices.take_attention(batch, "other")


def test_the_choice_is_kept_with_the_batch_queued(ledger: Ledger) -> None:
    batch = _batch(ledger)
    ledger.notices.choose(batch, NoticeChoice(webhook_url="http://h/x"))
    ledger.notices.choose(batch, NoticeChoice(desktop=False))
    assert ledger.notices.get(batch).choice == NoticeChoice(desktop=False)


def test_where_the_notices_read_the_feed_to_is_kept(ledger: Ledger) -> None:
    assert ledger.notices.read_up_to() is None
    ledger.notices.read_to(42)
    ledger.notices.read_to(43)
    assert ledger.notices.read_up_to() == 43
    assert ledger.settings.all().keys().isdisjoint({"notices_read"}), "not among the settings"
