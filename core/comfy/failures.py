"""Execution failures from history or the WebSocket, classified as oom / interrupted / other."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.errors import ExecutionFailure

if TYPE_CHECKING:
    from collections.abc import Mapping

    from core.comfy.shapes import Shape

OOM = "oom"
INTERRUPTED = "interrupted"
OTHER = "other"

# torch.cuda.OutOfMemoryError on older PyTorch, torch.OutOfMemoryError on recent ones.
OOM_EXCEPTION_TYPES = frozenset({"torch.OutOfMemoryError", "torch.cuda.OutOfMemoryError"})
# CPU-RAM and MPS exhaustion arrive as plain RuntimeError; only the message tells (see
# tests/data/recordings/history_execution_error_oom.json: "can't allocate memory").
OOM_PHRASES = ("out of memory", "can't allocate memory", "cannot allocate memory")

_TRACEBACK_LIMIT = 8192


def is_oom(exception_type: str | None, message: str) -> bool:
    """ComfyUI's rule, widened: an OOM exception type, or a message that says so."""
    if exception_type in OOM_EXCEPTION_TYPES:
        return True
    lowered = message.lower()
    return any(phrase in lowered for phrase in OOM_PHRASES)


def failure_from_error(data: Mapping[str, Any], shape: Shape) -> ExecutionFailure:
    """Parse the payload of an ``execution_error`` message."""
    exception_type = shape.opt_text(data.get("exception_type"), "execution_error.exception_type")
    message = shape.opt_text(data.get("exception_message"), "execution_error.exception_message")
    message = (message or "").strip()
    return ExecutionFailure(
        kind=OOM if is_oom(exception_type, message) else OTHER,
        node_id=_node_id(data, shape, "execution_error"),
        node_type=shape.opt_text(data.get("node_type"), "execution_error.node_type"),
        exception_type=exception_type,
        message=message,
        extra=_traceback(data.get("traceback")),
    )


def failure_from_interrupt(data: Mapping[str, Any], shape: Shape) -> ExecutionFailure:
    """Parse the payload of an ``execution_interrupted`` message."""
    return ExecutionFailure(
        kind=INTERRUPTED,
        node_id=_node_id(data, shape, "execution_interrupted"),
        node_type=shape.opt_text(data.get("node_type"), "execution_interrupted.node_type"),
        message="interrupted",
    )


def failure_from_messages(messages: object, shape: Shape) -> ExecutionFailure | None:
    """The failure told by a history ``status.messages`` list, or None if it shows none.

    Args:
        messages: the raw ``[[event, data], ...]`` list.
        shape: the accessor that names the route in errors.
    """
    for pair in shape.array(messages, "status.messages"):
        item = shape.array(pair, "status.messages[]")
        if len(item) != 2:
            shape.fail("status.messages[]", "an [event, data] pair", item)
        event = shape.text(item[0], "status.messages[][0]")
        if event == "execution_error":
            return failure_from_error(shape.obj(item[1], "execution_error"), shape)
        if event == "execution_interrupted":
            return failure_from_interrupt(shape.obj(item[1], "execution_interrupted"), shape)
    return None


def _node_id(data: Mapping[str, Any], shape: Shape, what: str) -> str | None:
    value = data.get("node_id")
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return shape.opt_text(value, f"{what}.node_id")


def _traceback(value: object) -> dict[str, str]:
    """Keep a bounded traceback text for display; ignore anything that is not a list of str."""
    if not isinstance(value, list) or not all(isinstance(line, str) for line in value):
        return {}
    text = "".join(value)
    return {"traceback": text[-_TRACEBACK_LIMIT:]} if text else {}
