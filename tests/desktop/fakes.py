"""A scriptable stand-in for core.controller.Controller: records commands, pushes statuses."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from core.batch import BatchSpec
from core.controller.commands import LedgerCommands
from core.controller.status import ControllerStatus
from core.job_state import JobState
from core.ledger import BatchRecord, Ledger

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable

    from core.batch.again import Again
    from core.controller.commands import Cancelled, Retried
    from core.ledger.marks import Mark

_T = TypeVar("_T")


class FakeController:
    """Writes batches, marks and names to a real ledger through the real commands (so the
    window sees them) and records every other call."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self.commands = LedgerCommands(ledger)
        self.status = ControllerStatus()
        self.calls: list[tuple[str, Any]] = []
        self.started = False
        self.stopped = False
        self._listeners: list[Callable[[ControllerStatus], None]] = []

    async def start(self) -> None:
        self.started = True

    async def stop(self) -> None:
        self.stopped = True

    def add_status_listener(self, callback: Callable[[ControllerStatus], None]) -> None:
        self._listeners.append(callback)

    def push(self, **changes: Any) -> ControllerStatus:
        """Change the status and tell every listener, as the controller's tasks would."""
        self.status = replace(self.status, **changes)
        for callback in self._listeners:
            callback(self.status)
        return self.status

    def queue_batch(
        self,
        preset_name: str,
        spec: BatchSpec,
        seed_inputs: Iterable[str] = (),
        name: str | None = None,
    ) -> tuple[BatchRecord, list[str]]:
        self.calls.append(("queue_batch", (preset_name, spec, list(seed_inputs))))
        return self.commands.queue_batch(preset_name, spec, seed_inputs, name)

    def queue_again(self, job_id: str) -> tuple[Again, BatchRecord, str]:
        self.calls.append(("queue_again", job_id))
        return self.commands.queue_again(job_id)

    def refresh_models(self) -> None:
        self.calls.append(("refresh_models", None))
        self.commands.refresh_models()

    def mark(self, job_ids: Iterable[str], mark: Mark | None) -> None:
        ids = list(job_ids)
        self.calls.append(("mark", (ids, mark)))
        self.commands.mark(ids, mark)

    def name_batch(self, batch_id: str, name: str | None) -> BatchRecord:
        self.calls.append(("name_batch", (batch_id, name)))
        return self.commands.name_batch(batch_id, name)

    async def in_worker(self, command: Callable[[], _T]) -> _T:
        """Runs the command at once: the fake's commands only record the call."""
        return command()

    def cancel(self, job_ids: Iterable[str]) -> Cancelled:
        ids = list(job_ids)
        self.calls.append(("cancel", ids))
        return dict.fromkeys(ids, JobState.cancelled)

    def cancel_batch(self, batch_id: str) -> Cancelled:
        self.calls.append(("cancel_batch", batch_id))
        return {}

    def cancel_all_but_running(self, batch_id: str | None = None) -> Cancelled:
        self.calls.append(("cancel_all_but_running", batch_id))
        return {}

    def retry(self, job_ids: Iterable[str]) -> Retried:
        ids = list(job_ids)
        self.calls.append(("retry", ids))
        return dict.fromkeys(ids, 2)

    def retry_failed(self, batch_id: str) -> Retried:
        self.calls.append(("retry_failed", batch_id))
        return {}

    def retry_smaller(
        self, job_id: str, factor: float = 0.75, shrink: Collection[str] | None = None
    ) -> str:
        self.calls.append(("retry_smaller", (job_id, factor, sorted(shrink or ()))))
        return job_id + "_smaller"

    def pause(self) -> None:
        self.calls.append(("pause", None))
        self.push(paused=True)

    def resume(self) -> None:
        self.calls.append(("resume", None))
        self.push(paused=False)

    def names(self) -> list[str]:
        return [name for name, _ in self.calls]
