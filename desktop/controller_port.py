"""What the desktop needs from a controller: the commands and status of `core.controller`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable

    from core.batch import BatchSpec
    from core.controller.status import ControllerStatus
    from core.ledger import BatchRecord


_T = TypeVar("_T")


class ControllerPort(Protocol):
    """The controller's interface as the GUI uses it (the real one, or a test fake)."""

    @property
    def status(self) -> ControllerStatus: ...

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    def add_status_listener(self, callback: Callable[[ControllerStatus], None]) -> None: ...

    def queue_batch(
        self, preset_name: str, spec: BatchSpec, seed_inputs: Iterable[str] = ()
    ) -> tuple[BatchRecord, list[str]]: ...

    async def in_worker(self, command: Callable[[], _T]) -> _T: ...

    # Cancel and retry return each job's new state, or why it could not be done.
    def cancel(self, job_ids: Iterable[str]) -> dict[str, str]: ...

    def cancel_batch(self, batch_id: str) -> dict[str, str]: ...

    def cancel_all_but_running(self, batch_id: str | None = None) -> dict[str, str]: ...

    def retry(self, job_ids: Iterable[str]) -> dict[str, str]: ...

    def retry_smaller(
        self, job_id: str, factor: float = 0.75, shrink: Collection[str] | None = None
    ) -> str: ...

    def pause(self) -> None: ...

    def resume(self) -> None: ...
