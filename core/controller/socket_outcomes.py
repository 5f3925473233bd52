"""Prompts seen to succeed on the WebSocket, with every output they made: their history entry
without asking the server for it.

A prompt's record is trusted only when nothing about it can have been missed: it was announced
before it was sent (``expect``), its ``execution_start``, ``execution_cached`` and
``execution_success`` were read on one unbroken connection with no message skipped in between,
and every node the server reused from its cache either sent its ``executed`` again (as ComfyUI
does for output nodes) or is known to show nothing (a stock node class that is no output node).
Anything less (a reconnect, a malformed message, a cached node that may hold outputs and said
nothing, a failure) and the prompt's outcome is read from ``/history`` as before.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from core.catalogue import Catalogue
from core.comfy import (
    Disconnected,
    Executed,
    ExecutionCached,
    ExecutionError,
    ExecutionInterrupted,
    ExecutionStart,
    ExecutionSuccess,
    HistoryEntry,
    Reconnected,
)

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from core.comfy import Event, ImageRef

MAX_KEPT = 1000  # records held at most (of each kind): the oldest go first
_V = TypeVar("_V")


@dataclass
class _Run:
    """What the socket said so far about one running prompt."""

    quiet: frozenset[str]  # its nodes known to have no outputs to show
    started_at: float | None
    skipped: int  # the listener's count of skipped messages when it started
    cached: frozenset[str] | None = None  # None: its execution_cached not read yet
    outputs: dict[str, tuple[ImageRef, ...]] = field(default_factory=dict)  # node -> images

    def complete(self, skipped: int) -> bool:
        return (
            self.cached is not None
            and skipped == self.skipped
            and self.cached - self.quiet <= self.outputs.keys()
        )


class SocketOutcomes:
    """Follows the WebSocket's messages; ``take`` hands over a complete success once."""

    def __init__(self) -> None:
        self._expected: dict[str, frozenset[str]] = {}  # prompt id -> its quiet nodes
        self._running: dict[str, _Run] = {}
        self._finished: dict[str, HistoryEntry] = {}

    def expect(self, prompt_id: str, quiet: frozenset[str]) -> None:
        """Follow ``prompt_id`` (about to be sent), whose nodes ``quiet`` show nothing."""
        _keep(self._expected, prompt_id, quiet)

    def see(self, event: Event, skipped: int = 0) -> None:
        """One event, read after the listener had skipped ``skipped`` malformed messages."""
        match event:
            case Disconnected() | Reconnected():
                self._running.clear()  # messages were lost in between
            case ExecutionStart(prompt_id=pid, timestamp=stamp):
                quiet = self._expected.pop(pid, None)
                self._running.pop(pid, None)  # run again: only history can tell which run
                if quiet is not None:
                    _keep(self._running, pid, _Run(quiet, _seconds(stamp), skipped))
            case ExecutionCached(prompt_id=pid, nodes=nodes) if pid in self._running:
                self._running[pid].cached = frozenset(nodes)
            case Executed(prompt_id=pid, node=node, images=images) if pid in self._running:
                self._running[pid].outputs[node] = images
            case ExecutionSuccess(prompt_id=pid, timestamp=stamp):
                run = self._running.pop(pid, None)
                if run is not None and run.complete(skipped):
                    _keep(self._finished, pid, _entry(pid, run, _seconds(stamp)))
            case ExecutionError(prompt_id=pid) | ExecutionInterrupted(prompt_id=pid):
                self._running.pop(pid, None)

    def take(self, prompt_id: str) -> HistoryEntry | None:
        """The history entry of ``prompt_id`` if the socket saw it succeed, every output
        included (then forgotten: asked again, it is None)."""
        return self._finished.pop(prompt_id, None)


def quiet_nodes(prompt: Mapping[str, Any]) -> frozenset[str]:
    """The nodes of an API ``prompt`` that show nothing: of a stock class that is no output
    node (a custom class may be one: it is not counted here)."""
    catalogue = Catalogue.bundled()
    quiet = set()
    for node_id, node in prompt.items():
        known = catalogue.get(str(node.get("class_type", "")))
        if known is not None and not known.output_node:
            quiet.add(node_id)
    return frozenset(quiet)


def _entry(prompt_id: str, run: _Run, finished_at: float | None) -> HistoryEntry:
    images = tuple(image for images in run.outputs.values() for image in images)
    return HistoryEntry(
        prompt_id=prompt_id,
        number=None,
        status="success",
        completed=True,
        images=images,
        started_at=run.started_at,
        finished_at=finished_at,
    )


def _keep(records: dict[str, _V], prompt_id: str, record: _V) -> None:
    records[prompt_id] = record
    if len(records) > MAX_KEPT:
        del records[next(iter(records))]


def _seconds(stamp: int | None) -> float | None:
    return None if stamp is None else stamp / 1000.0
