"""Queue a job again with its seed from the window: the controller's queue_again, the path
every batch takes (backpressure included)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from core.batch.again import again
from core.batch.spec import SeedMode, SeedPlan
from core.errors import BatchlineError

if TYPE_CHECKING:
    from core.ledger import Ledger
    from desktop.common.controller_port import ControllerPort

MORE_LIKE_THIS = 4  # the new-seed jobs "More like this" queues


def queue_again(controller: ControllerPort, job_id: str) -> tuple[str, str | None]:
    """Queue job ``job_id`` again: one line to show, and the new batch (None: refused, the line
    says why)."""
    try:
        request, batch, new_job = controller.queue_again(job_id)
    except BatchlineError as exc:
        return str(exc), None
    return request.describe(new_job, batch.id), batch.id


def queue_more_like(
    controller: ControllerPort, ledger: Ledger, job_id: str, count: int = MORE_LIKE_THIS
) -> tuple[str, str | None]:
    """Queue ``count`` jobs with job ``job_id``'s exact values and new random seeds, in a batch
    of their own: one line to show, and the new batch (None: refused, the line says why)."""
    try:
        request = again(ledger, job_id)
        if not request.seed_inputs:
            return f"{job_id} has no seed to change: use Queue again.", None
        spec = replace(request.spec, seeds=SeedPlan(mode=SeedMode.random, count=count))
        batch, jobs = controller.queue_batch(request.preset, spec, request.seed_inputs)
    except BatchlineError as exc:
        return str(exc), None
    return f"Queued {len(jobs)} more like {job_id}, with new seeds, in {batch.id}.", batch.id
