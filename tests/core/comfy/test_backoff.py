"""Reconnect delays: exponential, capped, jittered, never zero."""

from __future__ import annotations

import random

import pytest

from core.comfy.backoff import Backoff


def test_delays_grow_and_cap() -> None:
    backoff = Backoff(initial=1.0, factor=2.0, cap=8.0, jitter=0.0)
    assert [backoff.next_delay() for _ in range(6)] == [1.0, 2.0, 4.0, 8.0, 8.0, 8.0]


def test_jitter_stays_in_band_and_above_zero() -> None:
    backoff = Backoff(initial=0.5, cap=4.0, jitter=0.5, rng=random.Random(1))
    delays = [backoff.next_delay() for _ in range(200)]
    assert min(delays) >= 0.25
    assert max(delays) <= 4.0
    assert len(set(delays)) > 100


def test_reset_starts_over() -> None:
    backoff = Backoff(initial=1.0, jitter=0.0)
    for _ in range(5):
        backoff.next_delay()
    backoff.reset()
    assert backoff.next_delay() == 1.0


def test_many_attempts_do_not_overflow() -> None:
    backoff = Backoff(initial=1.0, cap=30.0, jitter=0.0, attempts=10_000)
    assert backoff.next_delay() == 30.0


@pytest.mark.parametrize(
    "kwargs", [{"initial": 0.0}, {"factor": 0.5}, {"cap": 0.1}, {"jitter": 1.0}]
)
def test_refuses_settings_that_allow_a_hot_loop(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError, match=r"must|need"):
        Backoff(**kwargs)  # type: ignore[arg-type]


def test_failing_from_the_first_delay_until_reset() -> None:
    backoff = Backoff(initial=1.0)
    assert not backoff.failing
    backoff.next_delay()
    assert backoff.failing
    backoff.reset()
    assert not backoff.failing
