"""The one table of reason texts: every reason has words, and causes read in them."""

from __future__ import annotations

import pytest

from core.job_state import Reason
from core.reason_texts import REASON_TEXTS, cause_text, reason_text


def test_every_reason_has_its_own_words() -> None:
    assert set(REASON_TEXTS) == set(Reason)
    assert len(set(REASON_TEXTS.values())) == len(Reason)
    assert all("_" not in text for text in REASON_TEXTS.values())


@pytest.mark.parametrize(
    ("reason", "text"),
    [
        ("oom", "out of memory"),
        (None, ""),
        ("", ""),
        ("from_a_later_version", "from a later version"),
    ],
)
def test_a_stored_reason_in_words(reason: str | None, text: str) -> None:
    assert reason_text(reason) == text


@pytest.mark.parametrize(
    ("cause", "text"),
    [
        ("oom", "out of memory"),
        ("timeout: retried as attempt 2", "no answer in time: retried as attempt 2"),
        ("server_lost while cancelling", "server restarted while cancelling"),
        ("connection_error: gave up after 3 attempts", "connection lost: gave up after 3 attempts"),
        ("accepted by ComfyUI", "accepted by ComfyUI"),
        ("manual retry as attempt 2", "manual retry as attempt 2"),
        (
            "attempt 1, answered late, succeeded first: a note",
            "attempt 1, answered late, succeeded first: a note",
        ),
    ],
)
def test_a_transitions_cause_in_words(cause: str, text: str) -> None:
    assert cause_text(cause) == text
