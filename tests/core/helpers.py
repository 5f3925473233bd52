"""Helpers shared by the core tests: a model-free workflow, fast controller settings, waiting."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.controller import ControllerConfig
from core.job_state import Reason
from core.ledger.attempt_error import AttemptError, ErrorKind

if TYPE_CHECKING:
    from collections.abc import Callable

    from core.ledger import Ledger

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


def server_refs(outputs: list[str]) -> list[dict[str, Any]]:
    """The server's image references a success records, one per local picture named."""
    return [{"filename": Path(path).name, "subfolder": "", "type": "output"} for path in outputs]


def succeed(
    ledger: Ledger,
    prompt_id: str,
    outputs: list[str],
    note: str = "",
    times: tuple[float | None, float | None] = (None, None),
) -> bool:
    """A success as the controller records it: on the server (with where its pictures lie),
    then its pictures fetched (``outputs``); whether the success was taken."""
    if not ledger.observe_succeeded(prompt_id, server_refs(outputs), note, times):
        return False
    return ledger.observe_fetched(prompt_id, outputs)


def succeed_late(
    ledger: Ledger,
    prompt_id: str,
    outputs: list[str],
    times: tuple[float | None, float | None] = (None, None),
) -> bool:
    """An older attempt's late success as the controller records it, then its pictures."""
    if not ledger.observe_late_success(prompt_id, server_refs(outputs), times=times):
        return False
    return ledger.observe_fetched(prompt_id, outputs)


def run_job(ledger: Ledger, job_id: str, n: int = 1) -> str:
    """Submit, queue and start the job's current attempt; returns its prompt id."""
    prompt_id = f"prompt-{job_id}-{n}"
    ledger.submit_attempt(job_id, prompt_id, "http://127.0.0.1:9", "hash")
    ledger.observe_queued(prompt_id, 1)
    ledger.observe_running(prompt_id)
    return prompt_id


def fail_job(ledger: Ledger, job_id: str, reason: Reason = Reason.oom) -> str:
    prompt_id = run_job(ledger, job_id)
    kind = {Reason.oom: ErrorKind.oom, Reason.validation_error: ErrorKind.validation}
    error = AttemptError(
        kind.get(reason, ErrorKind.execution), "CUDA out of memory", "3", "KSampler"
    )
    ledger.observe_failed(prompt_id, reason, error)
    return prompt_id


def succeed_job(ledger: Ledger, job_id: str, outputs: list[str]) -> str:
    prompt_id = run_job(ledger, job_id)
    succeed(ledger, prompt_id, outputs)
    return prompt_id
