"""What the desktop needs from a controller: its status, and the commands of
`core.controller.commands` (every command the window gives goes through them)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable

    from core.batch import BatchSpec
    from core.batch.again import Again
    from core.controller.commands import Cancelled, Retried
    from core.controller.status import ControllerStatus
    from core.ledger import BatchRecord
    from core.ledger.marks import Mark


_T = TypeVar("_T")


class ControllerPort(Protocol):
    """The controller's interface as the GUI uses it (the real one, or a test fake)."""

    @property
    def status(self) -> ControllerStatus: ...

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    def add_status_listener(self, callback: Callable[[ControllerStatus], None]) -> None: ...

    def queue_batch(
        self,
        preset_name: str,
        spec: BatchSpec,
        seed_inputs: Iterable[str] = (),
        name: str | None = None,
    ) -> tuple[BatchRecord, list[str]]: ...

    def queue_again(self, job_id: str) -> tuple[Again, BatchRecord, str]: ...

    async def in_worker(self, command: Callable[[], _T]) -> _T: ...

    # Cancel and retry return each job's new state (a retry's attempt), or why it was refused.
    def cancel(self, job_ids: Iterable[str]) -> Cancelled: ...

    def cancel_batch(self, batch_id: str) -> Cancelled: ...

    def cancel_all_but_running(self, batch_id: str | None = None) -> Cancelled: ...

    def retry(self, job_ids: Iterable[str]) -> Retried: ...

    def retry_failed(self, batch_id: str) -> Retried: ...

    def retry_smaller(
        self, job_id: str, factor: float = 0.75, shrink: Collection[str] | None = None
    ) -> str: ...

    def pause(self) -> None: ...

    def refresh_models(self) -> None: ...

    def resume(self) -> None: ...

    def mark(self, job_ids: Iterable[str], mark: Mark | None) -> None: ...

    def name_batch(self, batch_id: str, name: str | None) -> BatchRecord: ...
