"""Queue a job again with its seed from the window: through the controller's queue_batch, the
composer's path (backpressure included)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.batch.again import again
from core.errors import BatchlineError

if TYPE_CHECKING:
    from core.ledger import Ledger
    from desktop.controller_port import ControllerPort


def queue_again(ledger: Ledger, controller: ControllerPort, job_id: str) -> tuple[str, str | None]:
    """Queue job ``job_id`` again: one line to show, and the new batch (None: refused, the line
    says why)."""
    try:
        request = again(ledger, job_id)
        batch, job_ids = controller.queue_batch(request.preset, request.spec, request.seed_inputs)
    except BatchlineError as exc:
        return str(exc), None
    return request.describe(job_ids[0], batch.id), batch.id
