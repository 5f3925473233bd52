"""Everything a simulated ComfyUI process holds in memory, shared by routes and worker."""

from __future__ import annotations

import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from simulator.history import History
from simulator.node_catalogue import simulated_catalogue, simulated_object_info
from simulator.prompt_queue import PromptQueue
from simulator.sockets import SocketHub
from simulator.validation import Validator

if TYPE_CHECKING:
    from pathlib import Path

    from simulator.config import FaultSettings, SimulatorConfig


@dataclass
class CacheEntry:
    """A node's outputs and UI output from an earlier run, keyed by its input signature."""

    outputs: tuple[Any, ...]
    ui: dict[str, Any] | None


@dataclass
class Folders:
    """The output, input and temp folders the simulated server reads and writes."""

    output: Path
    input: Path
    temp: Path


class ServerState:
    """The simulated process: queue, history, node cache, sockets, flags and counters.

    A simulated restart replaces the volatile parts (queue, history, cache, counter) while
    execution and success counts survive, so tests can prove that nothing ran twice.
    """

    def __init__(self, config: SimulatorConfig, folders: Folders) -> None:
        self.config = config
        self.folders = folders
        self.object_info = simulated_object_info()
        catalogue = simulated_catalogue()
        self.validator = Validator(
            catalogue, self.object_info, folders.input, check_combo_type=config.has_jobs_api
        )
        self.catalogue = catalogue
        self.faults: FaultSettings = config.faults
        self.rng = random.Random(config.seed)
        self.hub = SocketHub()
        self.execution_counts: Counter[str] = Counter()
        self.success_counts: Counter[str] = Counter()
        # Successes a restart wiped from the history (survives restarts): a client that had not
        # recorded one yet can only run it again.
        self.successes_wiped: Counter[str] = Counter()
        self.restarts = 0
        self.reset()

    def restart(self) -> None:
        """Forget what a restart forgets, counting the successes it wipes from the history."""
        for prompt_id, entry in self.history.items():
            if entry["status"]["status_str"] == "success":
                self.successes_wiped[prompt_id] += 1
        self.reset()

    def reset(self) -> None:
        """Forget everything a ComfyUI restart forgets."""
        self.queue = PromptQueue()
        self.queue.listeners.append(self.broadcast_status)
        self.history = History()
        self.cache: dict[str, CacheEntry] = {}
        self.interrupted = False
        self.running_client: str | None = None
        self.last_node_id: str | None = None
        self.times: dict[str, JobTimes] = {}

    def broadcast_status(self) -> None:
        self.hub.send("status", self.status_data(), None)

    def status_data(self, sid: str | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {"status": {"exec_info": {"queue_remaining": self.queue.remaining}}}
        if sid is not None:
            data["sid"] = sid
        return data

    def interrupt(self, prompt_id: str | None) -> None:
        """Raise the interrupt flag, for any job or only if ``prompt_id`` is running now."""
        running = self.queue.running
        if prompt_id is None or (running is not None and running.prompt_id == prompt_id):
            self.interrupted = True


@dataclass
class JobTimes:
    """When a prompt was created, started and ended (ms epoch), for the jobs API."""

    create: int = field(default_factory=lambda: now_ms())
    start: int | None = None
    end: int | None = None


def now_ms() -> int:
    return int(time.time() * 1000)
