"""Everything a simulated ComfyUI process holds in memory, shared by routes and worker; its
prompt queue (a heap ordered by (number, prompt_id), one running item, a counter) and its
history (entries keyed by prompt_id in completion order, capped)."""

from __future__ import annotations

import asyncio
import copy
import heapq
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from core.catalogue import Catalogue
from simulator.model_lists import ModelLists, checked_lists, object_info_with
from simulator.nodes import simulated_catalogue
from simulator.sockets import SocketHub
from simulator.validation import Validator

if TYPE_CHECKING:
    from collections.abc import Callable
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
        self.set_models(config.models)
        self.faults: FaultSettings = config.faults
        self.rng = random.Random(config.seed)
        self.hub = SocketHub()
        self.execution_counts: Counter[str] = Counter()
        self.success_counts: Counter[str] = Counter()
        # Successes a restart wiped from the history (survives restarts): a client that had not
        # recorded one yet can only run it again.
        self.successes_wiped: Counter[str] = Counter()
        # How often each main model was loaded (survives restarts): a test counts the switches.
        self.model_loads: Counter[str] = Counter()
        # The LoadImage values each prompt's runs used, in run order (survives restarts).
        self.inputs_read: dict[str, list[str]] = {}
        self.restarts = 0
        self.reset()

    def set_models(self, models: ModelLists | None) -> None:
        """List `models` from now on (see `SimulatorConfig.models`): what object_info serves and
        validation accepts; ValueError for an unknown folder."""
        lists = checked_lists(models)
        self.config.models = lists
        self.object_info = object_info_with(lists)
        self.catalogue = (
            Catalogue.from_object_info(self.object_info, source="Batchline simulator")
            if lists
            else simulated_catalogue()
        )
        check_combo_type = self.config.has_jobs_api
        self.validator = Validator(
            self.catalogue, self.object_info, self.folders.input, check_combo_type
        )

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
        self.loaded_model: str | None = None  # the main model the last load brought in
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


# ComfyUI's prompt queue: a heap ordered by (number, prompt_id), one running item, a counter.

Prompt = dict[str, Any]


@dataclass(order=True)
class QueueItem:
    """One queued prompt, ordered like ComfyUI's heap tuples: by number, then prompt_id."""

    number: float
    prompt_id: str
    prompt: Prompt = field(compare=False)
    extra_data: dict[str, Any] = field(compare=False)
    outputs: list[str] = field(compare=False)
    create_time: int = field(default=0, compare=False)

    def to_json(self) -> list[Any]:
        """The ``[number, prompt_id, prompt, extra_data, outputs_to_execute]`` list form."""
        return [self.number, self.prompt_id, self.prompt, self.extra_data, list(self.outputs)]


class PromptQueue:
    """Pending prompts (a heap), the running prompt, and the submission counter.

    ``changed`` is called after every change that alters ``remaining`` so the server can
    broadcast a ``status`` message, as ComfyUI's ``queue_updated`` does.
    """

    def __init__(self) -> None:
        self.counter = 0
        self._heap: list[QueueItem] = []
        self.running: QueueItem | None = None
        self._wakeup = asyncio.Event()
        self.listeners: list[Callable[[], None]] = []

    def next_number(self, front: bool) -> int:
        """The number for a prompt without an explicit one; advances the counter."""
        number = -self.counter if front else self.counter
        self.counter += 1
        return number

    @property
    def remaining(self) -> int:
        return len(self._heap) + (1 if self.running is not None else 0)

    def put(self, item: QueueItem) -> None:
        heapq.heappush(self._heap, item)
        self._wakeup.set()
        self._notify()

    async def get(self) -> QueueItem:
        """Wait for the next prompt and mark it running (copied, like ComfyUI's dequeue)."""
        while not self._heap:
            self._wakeup.clear()
            await self._wakeup.wait()
        item = heapq.heappop(self._heap)
        self.running = copy.deepcopy(item)
        self._notify()
        return item

    def task_done(self) -> None:
        self.running = None
        self._notify()

    def pending(self) -> list[QueueItem]:
        """The raw heap array: element 0 runs next, the rest unsorted."""
        return list(self._heap)

    def delete(self, prompt_id: str) -> bool:
        """Remove the first pending item with this id; the running prompt is never touched."""
        for index, item in enumerate(self._heap):
            if item.prompt_id == prompt_id:
                self._heap.pop(index)
                heapq.heapify(self._heap)
                self._notify()
                return True
        return False

    def clear(self) -> None:
        self._heap.clear()
        self._notify()

    def find_pending(self, prompt_id: str) -> QueueItem | None:
        return next((item for item in self._heap if item.prompt_id == prompt_id), None)

    def _notify(self) -> None:
        for listener in self.listeners:
            listener()


# ComfyUI's in-memory history: entries keyed by prompt_id in completion order, capped.

MAXIMUM_HISTORY_SIZE = 10000

Entry = dict[str, Any]


class History:
    """Finished prompts by id, oldest first; a re-run id keeps its earlier position."""

    def __init__(self) -> None:
        self._entries: dict[str, Entry] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, prompt_id: object) -> bool:
        return prompt_id in self._entries

    def add(self, prompt_id: str, entry: Entry) -> None:
        if len(self._entries) > MAXIMUM_HISTORY_SIZE:
            del self._entries[next(iter(self._entries))]
        self._entries[prompt_id] = entry

    def get(self, prompt_id: str) -> Entry | None:
        return self._entries.get(prompt_id)

    def items(self) -> list[tuple[str, Entry]]:
        return list(self._entries.items())

    def window(self, max_items: int | None, offset: int | None) -> dict[str, Entry]:
        """ComfyUI's ``get_history``: newest N, or ``[offset, offset + N)`` from the oldest."""
        keys = list(self._entries)
        if offset is not None:
            if offset >= len(keys):
                return {}
            keys = keys[offset:]
            if max_items is not None:
                keys = keys[:max_items]
        elif max_items is not None:
            keys = keys[-max_items:] if max_items > 0 else []
        return {key: self._entries[key] for key in keys}

    def delete(self, prompt_id: str) -> None:
        self._entries.pop(prompt_id, None)

    def clear(self) -> None:
        self._entries.clear()
