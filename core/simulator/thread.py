"""Run a `Simulator` in its own thread and event loop (for the GUI demo and qasync tests)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

from core.simulator.config import SimulatorConfig
from core.simulator.simulator import Simulator

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
        self._stopped = threading.Event()

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
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            ready.set_result(loop.run_until_complete(self.simulator.start(host, port)))
        except BaseException as exc:
            ready.set_exception(exc)
            loop.close()
            return
        loop.run_until_complete(self._wait_for_stop())
        loop.run_until_complete(self.simulator.stop())
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()

    async def _wait_for_stop(self) -> None:
        while not self._stopped.is_set():
            await asyncio.sleep(0.02)

    def call(self, fn: Callable[[Simulator], T | Coroutine[Any, Any, T]], timeout: float = 30.0) -> T:
        """Run ``fn(simulator)`` on the simulator's loop and return its result."""
        if self._loop is None:
            raise RuntimeError("the simulator thread is not running")

        async def invoke() -> T:
            result = fn(self.simulator)
            if asyncio.iscoroutine(result):
                return await result  # type: ignore[no-any-return]
            return result  # type: ignore[return-value]

        return asyncio.run_coroutine_threadsafe(invoke(), self._loop).result(timeout)

    def set_faults(self, **changes: Any) -> None:
        self.call(lambda sim: sim.set_faults(**changes))

    def fail_next(self, count: int = 1, kind: str = "oom") -> None:
        self.call(lambda sim: sim.fail_next(count, kind))

    def hang_next(self, count: int = 1) -> None:
        self.call(lambda sim: sim.hang_next(count))

    def restart(self) -> None:
        self.call(lambda sim: sim.restart())

    def drop_websockets(self) -> None:
        self.call(lambda sim: sim.drop_websockets())

    def execution_count(self, prompt_id: str) -> int:
        return self.call(lambda sim: sim.execution_count(prompt_id))

    def stats(self) -> dict[str, Any]:
        return self.call(lambda sim: sim.stats())

    def stop(self, timeout: float = 30.0) -> None:
        self._stopped.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
