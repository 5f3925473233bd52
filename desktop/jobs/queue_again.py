"""Queue a job again with its seed from the window: the controller's queue_again, the path
every batch takes (backpressure included)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.errors import BatchlineError

if TYPE_CHECKING:
    from desktop.common.controller_port import ControllerPort


def queue_again(controller: ControllerPort, job_id: str) -> tuple[str, str | None]:
    """Queue job ``job_id`` again: one line to show, and the new batch (None: refused, the line
    says why)."""
    try:
        request, batch, new_job = controller.queue_again(job_id)
    except BatchlineError as exc:
        return str(exc), None
    return request.describe(new_job, batch.id), batch.id
