"""Typed, immutable WebSocket events, and the parser that turns one text frame into one of them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.comfy.failures import failure_from_error, failure_from_interrupt
from core.comfy.responses import ImageRef, parse_images
from core.comfy.shapes import JsonObject, Shape, parse_json
from core.errors import ComfyProtocolError

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


@dataclass(frozen=True, slots=True)
class PreviewImage:
    """A binary frame: a preview of the running node, JPEG or PNG bytes (``mime``).

    Type 4 (sent to clients that announced ``supports_preview_metadata``) names its prompt and
    node; type 1 (older servers, other clients) names neither: it belongs to whatever runs.
    """

    prompt_id: str | None
    node_id: str | None
    mime: str
    data: bytes


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
Event = ConnectionEvent | Status | PromptEvent | PreviewImage


# --- parsing ----------------------------------------------------------------------------------

# Binary frames: a big-endian uint32 type first (ComfyUI's protocol.BinaryEventTypes).
PREVIEW_IMAGE, PREVIEW_IMAGE_WITH_METADATA = 1, 4
_IMAGE_FORMATS = {1: "image/jpeg", 2: "image/png"}
_MIMES = frozenset(_IMAGE_FORMATS.values())
MAX_METADATA = 64 * 1024


def parse_binary(frame: bytes) -> PreviewImage | None:
    """One binary frame → a preview; None for the types Batchline does not use (unencoded
    previews, text).

    Raises:
        ComfyProtocolError: a preview frame too short, or with unreadable metadata.
    """
    if len(frame) < 8:
        raise ComfyProtocolError(f"binary frame of {len(frame)} bytes", ROUTE)
    kind, word = int.from_bytes(frame[:4], "big"), int.from_bytes(frame[4:8], "big")
    if kind == PREVIEW_IMAGE:
        mime = _IMAGE_FORMATS.get(word)
        if mime is None:
            raise ComfyProtocolError(f"preview image of unknown format {word}", ROUTE)
        return PreviewImage(None, None, mime, frame[8:])
    if kind != PREVIEW_IMAGE_WITH_METADATA:
        return None
    if word > min(MAX_METADATA, len(frame) - 8):
        raise ComfyProtocolError(f"preview metadata of {word} bytes", ROUTE)
    meta = _SHAPE.obj(parse_json(frame[8 : 8 + word].decode("utf-8", "replace"), ROUTE), "meta")
    prompt_id, node_id = meta.get("prompt_id"), meta.get("node_id")
    mime = meta.get("image_type")
    return PreviewImage(
        prompt_id if isinstance(prompt_id, str) else None,
        node_id if isinstance(node_id, str) else None,
        mime if mime in _MIMES else "image/png",
        frame[8 + word :],
    )


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
