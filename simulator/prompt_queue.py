"""ComfyUI's prompt queue: a heap ordered by (number, prompt_id), one running item, a counter."""

from __future__ import annotations

import asyncio
import copy
import heapq
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

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
