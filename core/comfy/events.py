"""Typed, immutable WebSocket events, and the parser that turns one text frame into one of them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.comfy.failures import failure_from_error, failure_from_interrupt
from core.comfy.responses import ImageRef, parse_images
from core.comfy.shapes import JsonObject, Shape, parse_json

if TYPE_CHECKING:
    from collections.abc import Callable

    from core.errors import ExecutionFailure

ROUTE = "WS /ws"
_SHAPE = Shape(ROUTE)


# --- connection announcements -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Connected:
    """The listener's first connection is open."""

    client_id: str


@dataclass(frozen=True, slots=True)
class Disconnected:
    """The socket dropped or a connection attempt failed; the next attempt is in ``retry_in`` s."""

    reason: str
    retry_in: float


@dataclass(frozen=True, slots=True)
class Reconnected:
    """A new socket is open after a drop. Events in between are lost: re-read /queue, /history."""

    client_id: str
    attempt: int


# --- server messages --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Status:
    """``status``: prompts running + pending on the server (all clients)."""

    queue_remaining: int


@dataclass(frozen=True, slots=True)
class ExecutionStart:
    """``execution_start``: the prompt left the queue and began to run."""

    prompt_id: str
    timestamp: int | None = None


@dataclass(frozen=True, slots=True)
class ExecutionCached:
    """``execution_cached``: these nodes are reused from the cache."""

    prompt_id: str
    nodes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Executing:
    """``executing``: a node starts; ``node`` None means the prompt is done and history written.

    ``prompt_id`` is None for the message a server sends on (re)connect: it names no prompt
    and must not be attributed to one.
    """

    prompt_id: str | None
    node: str | None


@dataclass(frozen=True, slots=True)
class Progress:
    """``progress``: step ``value`` of ``max`` within one node."""

    prompt_id: str
    node: str | None
    value: float
    max: float


@dataclass(frozen=True, slots=True)
class Executed:
    """``executed``: an output node finished; its images."""

    prompt_id: str
    node: str
    images: tuple[ImageRef, ...] = ()


@dataclass(frozen=True, slots=True)
class ExecutionSuccess:
    """``execution_success``: the prompt finished (history may lag until Executing(node=None))."""

    prompt_id: str
    timestamp: int | None = None


@dataclass(frozen=True, slots=True)
class ExecutionError:
    """``execution_error``: the prompt failed; ``failure.kind`` is ``oom`` or ``other``."""

    prompt_id: str
    failure: ExecutionFailure


@dataclass(frozen=True, slots=True)
class ExecutionInterrupted:
    """``execution_interrupted``: the prompt was interrupted (by us or anyone)."""

    prompt_id: str
    failure: ExecutionFailure


ConnectionEvent = Connected | Disconnected | Reconnected
PromptEvent = (
    ExecutionStart
    | ExecutionCached
    | Executing
    | Progress
    | Executed
    | ExecutionSuccess
    | ExecutionError
    | ExecutionInterrupted
)
Event = ConnectionEvent | Status | PromptEvent


# --- parsing ----------------------------------------------------------------------------------


def parse_event(frame: str) -> Event | None:
    """One text frame → its event; None for a message type Batchline does not use.

    Raises:
        ComfyProtocolError: the message is malformed (the listener counts these).
    """
    message = _SHAPE.obj(parse_json(frame, ROUTE), "message")
    kind = _SHAPE.text(_SHAPE.key(message, "type", "message"), "type")
    parser = _PARSERS.get(kind)
    if parser is None:
        return None
    return parser(_SHAPE.obj(_SHAPE.key(message, "data", "message"), f"{kind}.data"))


def _pid(data: JsonObject, what: str) -> str:
    return _SHAPE.text(_SHAPE.key(data, "prompt_id", what), f"{what}.prompt_id")


def _node(value: object, what: str) -> str | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return _SHAPE.opt_text(value, what)


def _status(data: JsonObject) -> Status:
    status = _SHAPE.obj(_SHAPE.key(data, "status", "status"), "status.status")
    info = _SHAPE.obj(_SHAPE.key(status, "exec_info", "status"), "status.exec_info")
    remaining = _SHAPE.key(info, "queue_remaining", "exec_info")
    return Status(queue_remaining=_SHAPE.integer(remaining, "queue_remaining"))


def _execution_start(data: JsonObject) -> ExecutionStart:
    stamp = _SHAPE.opt_integer(data.get("timestamp"), "execution_start.timestamp")
    return ExecutionStart(prompt_id=_pid(data, "execution_start"), timestamp=stamp)


def _execution_cached(data: JsonObject) -> ExecutionCached:
    nodes = _SHAPE.text_list(data.get("nodes", []), "execution_cached.nodes")
    return ExecutionCached(prompt_id=_pid(data, "execution_cached"), nodes=nodes)


def _executing(data: JsonObject) -> Executing:
    prompt_id = _SHAPE.opt_text(data.get("prompt_id"), "executing.prompt_id")
    return Executing(prompt_id=prompt_id, node=_node(data.get("node"), "executing.node"))


def _progress(data: JsonObject) -> Progress:
    return Progress(
        prompt_id=_pid(data, "progress"),
        node=_node(data.get("node"), "progress.node"),
        value=float(_SHAPE.number(_SHAPE.key(data, "value", "progress"), "progress.value")),
        max=float(_SHAPE.number(_SHAPE.key(data, "max", "progress"), "progress.max")),
    )


def _executed(data: JsonObject) -> Executed:
    node = _node(_SHAPE.key(data, "node", "executed"), "executed.node") or ""
    output = _SHAPE.obj(data.get("output") or {}, "executed.output")
    images = tuple(parse_images(output, node, _SHAPE))
    return Executed(prompt_id=_pid(data, "executed"), node=node, images=images)


def _execution_success(data: JsonObject) -> ExecutionSuccess:
    stamp = _SHAPE.opt_integer(data.get("timestamp"), "execution_success.timestamp")
    return ExecutionSuccess(prompt_id=_pid(data, "execution_success"), timestamp=stamp)


def _execution_error(data: JsonObject) -> ExecutionError:
    failure = failure_from_error(data, _SHAPE)
    return ExecutionError(prompt_id=_pid(data, "execution_error"), failure=failure)


def _execution_interrupted(data: JsonObject) -> ExecutionInterrupted:
    failure = failure_from_interrupt(data, _SHAPE)
    return ExecutionInterrupted(prompt_id=_pid(data, "execution_interrupted"), failure=failure)


_PARSERS: dict[str, Callable[[JsonObject], Event]] = {
    "status": _status,
    "execution_start": _execution_start,
    "execution_cached": _execution_cached,
    "executing": _executing,
    "progress": _progress,
    "executed": _executed,
    "execution_success": _execution_success,
    "execution_error": _execution_error,
    "execution_interrupted": _execution_interrupted,
}
