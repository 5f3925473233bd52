"""Sans-IO retry delays: exponential, capped, jittered, never zero."""

from __future__ import annotations

import random
from dataclasses import dataclass, field


@dataclass
class Backoff:
    """Hands out the delay before each new attempt after a failure (a WebSocket reconnect, a
    server that cannot be reached, a controller loop that failed).

    Delays grow ``initial * factor**n`` up to ``cap``; each is scaled by a random factor in
    ``[1 - jitter, 1]`` so many clients do not reconnect in step, and is never below
    ``initial * (1 - jitter)``, so a server that accepts and drops at once cannot cause a hot
    loop. ``reset`` after an attempt that worked (a connection that stayed up).
    """

    initial: float = 0.5
    factor: float = 2.0
    cap: float = 30.0
    jitter: float = 0.5
    rng: random.Random = field(default_factory=random.Random, repr=False)
    attempts: int = 0

    def __post_init__(self) -> None:
        if self.initial <= 0 or self.factor < 1 or self.cap < self.initial:
            raise ValueError("need initial > 0, factor >= 1, cap >= initial")
        if not 0 <= self.jitter < 1:
            raise ValueError("jitter must be in [0, 1)")

    def next_delay(self) -> float:
        """The delay before the next attempt; each call counts one attempt."""
        base = min(self.cap, self.initial * self.factor ** min(self.attempts, 64))
        self.attempts += 1
        return base * (1 - self.jitter * self.rng.random())

    def reset(self) -> None:
        self.attempts = 0

    @property
    def failing(self) -> bool:
        """Whether an attempt failed since the last ``reset``."""
        return self.attempts > 0
