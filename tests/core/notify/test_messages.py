"""What a batch's end says: the counts in words, its title, the webhook's JSON."""

from __future__ import annotations

from pathlib import Path

from core.batch.batch_counts import BatchCounts
from core.job_state import JobState
from core.notify.messages import BatchNews, EndState, count_words, end_of


def test_the_counts_say_how_the_batch_ended() -> None:
    counts = BatchCounts.of_states({JobState.succeeded: 38, JobState.failed: 2})
    assert (end_of(counts), count_words(counts)) == (EndState.finished, "38 done, 2 failed")
    failed = BatchCounts.of_states({JobState.failed: 2, JobState.cancelled: 1})
    assert end_of(failed) is EndState.failed
    assert end_of(BatchCounts.of_states({JobState.cancelled: 1})) is EndState.cancelled
    waiting = BatchCounts.of_states(
        {JobState.succeeded: 1, JobState.pending: 1, JobState.running: 1}
    )
    assert (end_of(waiting), count_words(waiting)) == (None, "1 done, 2 waiting")
    assert end_of(BatchCounts()) is None


def test_the_news_and_its_json() -> None:
    counts = BatchCounts(succeeded=38, failed=2)
    news = BatchNews(
        "batch_1", "Portrait · 40 seeds", EndState.finished, counts, 0.0, Path("/out/batch_1")
    )
    assert (news.heading, news.text) == ("Batch finished", "Portrait · 40 seeds: 38 done, 2 failed")
    assert news.line == "Batch finished: Portrait · 40 seeds: 38 done, 2 failed"
    body = news.to_json()
    assert body["batch"] == {"id": "batch_1", "name": "Portrait · 40 seeds"}
    assert body["counts"] == {"done": 38, "failed": 2, "cancelled": 0, "waiting": 0, "total": 40}
    assert (body["state"], body["event"], body["why"]) == ("finished", "batch.ended", None)
    assert body["finished_at"] == "1970-01-01T00:00:00+00:00"
    assert (body["folder"], body["folder_url"]) == ("/out/batch_1", "file:///out/batch_1")
    paused = BatchNews("b", "Fox", EndState.attention, BatchCounts(waiting=2), 0.0, None, "paused")
    assert paused.text == "Fox: 0 done, 2 waiting (sending is paused)"
    assert paused.to_json()["event"] == "batch.attention"
    assert paused.to_json()["folder"] is None
