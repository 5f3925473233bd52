"""A scriptable stand-in for core.controller.Controller: records commands, pushes statuses."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from core.batch import BatchSpec, queue_batch
from core.controller.status import ControllerStatus
from core.ledger import BatchRecord, Ledger

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable

_T = TypeVar("_T")


class FakeController:
    """Writes batches to a real ledger (so the table sees them) and records every other call."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
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
        self, preset_name: str, spec: BatchSpec, seed_inputs: Iterable[str] = ()
    ) -> tuple[BatchRecord, list[str]]:
        """Compose and write the batch as the real controller does (core.controller.queue_batch)."""
        self.calls.append(("queue_batch", (preset_name, spec, list(seed_inputs))))
        return queue_batch(self.ledger, preset_name, spec, seed_inputs=list(seed_inputs))

    async def in_worker(self, command: Callable[[], _T]) -> _T:
        """Runs the command at once: the fake's commands only record the call."""
        return command()

    def cancel(self, job_ids: Iterable[str]) -> dict[str, str]:
        ids = list(job_ids)
        self.calls.append(("cancel", ids))
        return dict.fromkeys(ids, "cancelled")

    def cancel_batch(self, batch_id: str) -> dict[str, str]:
        self.calls.append(("cancel_batch", batch_id))
        return {}

    def cancel_all_but_running(self, batch_id: str | None = None) -> dict[str, str]:
        self.calls.append(("cancel_all_but_running", batch_id))
        return {}

    def retry(self, job_ids: Iterable[str]) -> dict[str, str]:
        ids = list(job_ids)
        self.calls.append(("retry", ids))
        return dict.fromkeys(ids, "pending")

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
