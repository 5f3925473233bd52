"""Run a `Simulator` in its own thread and event loop (for the GUI demo and qasync tests)."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, TypeVar

from simulator.simulator import Simulator

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from simulator.config import SimulatorConfig
    from simulator.model_lists import ModelLists

T = TypeVar("T")


class SimulatorThread:
    """Owns a background thread running one simulator; its methods are thread-safe.

    ``start()`` blocks until the server listens and returns its URL; ``call(fn)`` runs
    ``fn(simulator)`` on the simulator's loop (awaiting it if it returns a coroutine).
    """

    def __init__(self, config: SimulatorConfig | None = None) -> None:
        self.simulator = Simulator(config)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stop_event: asyncio.Event | None = None

    def start(self, host: str = "127.0.0.1", port: int = 0, timeout: float = 30.0) -> str:
        ready: Future[str] = Future()
        self._thread = threading.Thread(
            target=self._run, args=(host, port, ready), name="batchline-simulator", daemon=True
        )
        self._thread.start()
        return ready.result(timeout)

    @property
    def url(self) -> str:
        return self.simulator.url

    def _run(self, host: str, port: int, ready: Future[str]) -> None:
        # A plain asyncio loop whatever policy the caller installed: under qasync.run, the
        # policy's loops are Qt loops bound to the main thread and cannot run in this one.
        loop = asyncio.DefaultEventLoopPolicy().new_event_loop()
        self._loop = loop
        self._stop_event = asyncio.Event()
        try:
            ready.set_result(loop.run_until_complete(self.simulator.start(host, port)))
        except BaseException as exc:
            ready.set_exception(exc)
            loop.close()
            return
        loop.run_until_complete(self._stop_event.wait())
        loop.run_until_complete(self.simulator.stop())
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()

    def call(self, fn: Callable[[Simulator], T], timeout: float = 30.0) -> T:
        """Run ``fn(simulator)`` on the simulator's loop and return its result."""

        async def invoke() -> T:
            return fn(self.simulator)

        return self.call_async(lambda _sim: invoke(), timeout)

    def call_async(self, fn: Callable[[Simulator], Awaitable[T]], timeout: float = 30.0) -> T:
        """Await ``fn(simulator)`` on the simulator's loop and return its result."""
        if self._loop is None:
            raise RuntimeError("the simulator thread is not running")

        async def invoke() -> T:
            return await fn(self.simulator)

        return asyncio.run_coroutine_threadsafe(invoke(), self._loop).result(timeout)

    def set_faults(self, **changes: Any) -> None:
        self.call(lambda sim: sim.set_faults(**changes))

    def set_models(self, models: ModelLists | None) -> None:
        self.call(lambda sim: sim.set_models(models))

    def fail_next(self, count: int = 1, kind: str = "oom") -> None:
        self.call(lambda sim: sim.fail_next(count, kind))

    def hang_next(self, count: int = 1) -> None:
        self.call(lambda sim: sim.hang_next(count))

    def restart(self) -> None:
        self.call_async(lambda sim: sim.restart())

    def drop_websockets(self) -> None:
        self.call_async(lambda sim: sim.drop_websockets())

    def execution_count(self, prompt_id: str) -> int:
        return self.call(lambda sim: sim.execution_count(prompt_id))

    def stats(self) -> dict[str, Any]:
        return self.call(lambda sim: sim.stats())

    def wipe_input(self) -> int:
        return self.call(lambda sim: sim.wipe_input())

    def inputs_read(self) -> dict[str, list[str]]:
        return self.call(lambda sim: sim.inputs_read())

    def upload_stats(self) -> dict[str, Any]:
        return self.call(lambda sim: sim.upload_stats())

    def stop(self, timeout: float = 30.0) -> None:
        """Stop the server and wait for the thread to end."""
        loop, event = self._loop, self._stop_event
        if loop is not None and event is not None and not loop.is_closed():
            loop.call_soon_threadsafe(event.set)
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
