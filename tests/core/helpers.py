"""Helpers shared by the core tests: a model-free workflow, fast controller settings, waiting."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from core.controller import ControllerConfig

if TYPE_CHECKING:
    from collections.abc import Callable

# EmptyImage -> ImageAddNoise(seed) -> SaveImage: runs for real on the simulator, no models.
NOISE_WORKFLOW: dict[str, Any] = {
    "1": {
        "class_type": "EmptyImage",
        "inputs": {"width": 64, "height": 64, "batch_size": 1, "color": 8421504},
    },
    "2": {"class_type": "ImageAddNoise", "inputs": {"image": ["1", 0], "seed": 1, "strength": 0.5}},
    "3": {"class_type": "SaveImage", "inputs": {"images": ["2", 0], "filename_prefix": "noise"}},
}

# Controller settings for tests: fast polls, a short grace period, a short offline backoff.
FAST = ControllerConfig(
    poll_active_s=0.05,
    poll_idle_s=0.2,
    grace_s=0.3,
    settle_s=0.6,
    offline_first_s=0.05,
    offline_max_s=0.5,
)


async def wait_for(check: Callable[[], bool], within: float = 15.0) -> None:
    """Poll ``check()`` until it holds; fail the test after ``within`` seconds."""
    async with asyncio.timeout(within):
        while not check():  # noqa: ASYNC110 - polling a plain predicate, bounded
            await asyncio.sleep(0.02)
