"""Typed, validated answers of the ComfyUI HTTP routes (submit, queue, history, system stats)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from core.comfy.failures import failure_from_messages
from core.comfy.node_errors import parse_node_errors
from core.comfy.shapes import JsonObject, Shape

LEDGER_MARK = "batchline_ledger"  # the extra_data key naming the ledger that sent a prompt

if TYPE_CHECKING:
    from core.errors import ExecutionFailure, NodeError

QueuePlace = Literal["running", "pending"]


@dataclass(frozen=True, slots=True)
class ImageRef:
    """One output image as the server names it; pass it to ``ComfyClient.download``.

    ``filename`` and ``subfolder`` are the server's names: they go into the ``/view`` query,
    never into a local path.
    """

    filename: str
    subfolder: str = ""
    type: str = "output"
    node_id: str | None = None


@dataclass(frozen=True, slots=True)
class SubmitResult:
    """The server accepted a prompt (``POST /prompt`` 200).

    ``node_errors`` non-empty is a warning: the outputs listed there were dropped and the rest
    of the prompt runs.
    """

    prompt_id: str
    number: int | float
    node_errors: tuple[NodeError, ...] = ()

    @property
    def dropped_outputs(self) -> tuple[str, ...]:
        """Output node ids the server dropped because they failed validation."""
        ids = {out for err in self.node_errors for out in err.dependent_outputs}
        return tuple(sorted(ids))


@dataclass(frozen=True, slots=True)
class QueueItem:
    """One prompt in ``/queue``: only what a controller needs (not the prompt itself).

    ``ledger`` is the mark a Batchline ledger puts into the ``extra_data`` of the prompts it
    sends (``LEDGER_MARK``), so its controller can tell its own prompts from everyone else's.
    """

    number: int | float
    prompt_id: str
    client_id: str | None = None
    ledger: str | None = None


@dataclass(frozen=True, slots=True)
class QueueSnapshot:
    """``GET /queue``: the running prompt(s) and the pending ones in run order."""

    running: tuple[QueueItem, ...]
    pending: tuple[QueueItem, ...]

    def place_of(self, prompt_id: str) -> QueuePlace | None:
        """Where the prompt is: ``running``, ``pending``, or None if in neither."""
        if any(item.prompt_id == prompt_id for item in self.running):
            return "running"
        if any(item.prompt_id == prompt_id for item in self.pending):
            return "pending"
        return None

    def __contains__(self, prompt_id: object) -> bool:
        return isinstance(prompt_id, str) and self.place_of(prompt_id) is not None

    def __len__(self) -> int:
        return len(self.running) + len(self.pending)


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """A finished prompt as history tells it: status, output images, and failure if any."""

    prompt_id: str
    number: int | float | None
    status: str
    completed: bool
    images: tuple[ImageRef, ...] = ()
    failure: ExecutionFailure | None = None
    started_at: float | None = None  # epoch seconds of execution_start, from the server
    finished_at: float | None = None  # epoch seconds of the terminal message

    @property
    def succeeded(self) -> bool:
        return self.completed and self.failure is None


@dataclass(frozen=True, slots=True)
class Device:
    """One compute device from ``/system_stats`` (sizes in bytes)."""

    name: str
    type: str
    vram_total: int | None = None
    vram_free: int | None = None


@dataclass(frozen=True, slots=True)
class SystemStats:
    """``GET /system_stats``: server version and devices."""

    comfyui_version: str | None
    os: str | None
    python_version: str | None
    devices: tuple[Device, ...] = ()


# --- parsers ----------------------------------------------------------------------------------


def parse_submit(body: Any, route: str) -> SubmitResult:
    shape = Shape(route)
    obj = shape.obj(body, "body")
    return SubmitResult(
        prompt_id=shape.text(shape.key(obj, "prompt_id", "body"), "prompt_id"),
        number=shape.number(shape.key(obj, "number", "body"), "number"),
        node_errors=parse_node_errors(obj.get("node_errors", {}), shape),
    )


def parse_queue(body: Any, route: str) -> QueueSnapshot:
    shape = Shape(route)
    obj = shape.obj(body, "body")
    running = _queue_items(shape.key(obj, "queue_running", "body"), "queue_running", shape)
    pending = _queue_items(shape.key(obj, "queue_pending", "body"), "queue_pending", shape)
    # queue_pending is the server's raw heap array: only element 0 is in place.
    order = sorted(pending, key=lambda item: (item.number, item.prompt_id))
    return QueueSnapshot(running=tuple(running), pending=tuple(order))


def _queue_items(value: object, what: str, shape: Shape) -> list[QueueItem]:
    return [_queue_item(raw, f"{what}[]", shape) for raw in shape.array(value, what)]


def _queue_item(raw: object, what: str, shape: Shape) -> QueueItem:
    """``[number, prompt_id, prompt, extra_data, outputs, ...]``: keep number, id, client."""
    item = shape.array(raw, what)
    if len(item) < 2:
        shape.fail(what, "[number, prompt_id, ...]", item)
    extra = shape.obj(item[3], f"{what}[3]") if len(item) > 3 else {}
    mark = extra.get(LEDGER_MARK)
    return QueueItem(
        number=shape.number(item[0], f"{what}[0]"),
        prompt_id=shape.text(item[1], f"{what}[1]"),
        client_id=shape.opt_text(extra.get("client_id"), f"{what}[3].client_id"),
        ledger=mark if isinstance(mark, str) else None,
    )


def parse_history(body: Any, route: str) -> tuple[HistoryEntry, ...]:
    """A ``/history`` object keyed by prompt id, in the server's (completion) order."""
    shape = Shape(route)
    obj = shape.obj(body, "body")
    return tuple(parse_history_entry(pid, raw, shape) for pid, raw in obj.items())


def parse_history_entry(prompt_id: str, raw: object, shape: Shape) -> HistoryEntry:
    entry = shape.obj(raw, "entry")
    status = shape.obj(shape.key(entry, "status", "entry"), "status")
    return HistoryEntry(
        prompt_id=prompt_id,
        number=_history_number(entry.get("prompt"), shape),
        status=shape.text(shape.key(status, "status_str", "status"), "status.status_str"),
        completed=shape.flag(shape.key(status, "completed", "status"), "status.completed"),
        images=parse_outputs(entry.get("outputs", {}), shape),
        failure=failure_from_messages(status.get("messages", []), shape),
        started_at=_message_time(status.get("messages"), first=True),
        finished_at=_message_time(status.get("messages"), first=False),
    )


def _message_time(messages: object, *, first: bool) -> float | None:
    """The server's timestamp (ms → s) of the first or last status message, if well-formed."""
    if not isinstance(messages, list) or not messages:
        return None
    message = messages[0] if first else messages[-1]
    if not (isinstance(message, list) and len(message) == 2 and isinstance(message[1], dict)):
        return None
    stamp = message[1].get("timestamp")
    if isinstance(stamp, bool) or not isinstance(stamp, int | float):
        return None
    return float(stamp) / 1000.0


def _history_number(value: object, shape: Shape) -> int | float | None:
    if value is None:
        return None
    item = shape.array(value, "prompt")
    return shape.number(item[0], "prompt[0]") if item else None


def parse_outputs(value: object, shape: Shape) -> tuple[ImageRef, ...]:
    """Images of ``{node_id: {"images": [...], ...}}``; other output kinds are ignored."""
    images: list[ImageRef] = []
    for node_id, raw in shape.obj(value, "outputs").items():
        images.extend(parse_images(shape.obj(raw, f"outputs[{node_id!r}]"), node_id, shape))
    return tuple(images)


def parse_images(output: JsonObject, node_id: str, shape: Shape) -> list[ImageRef]:
    """The ``images`` list of one node's UI output (absent means none)."""
    raw_images = shape.array(output.get("images", []), "images")
    return [_image(shape.obj(raw, "images[]"), node_id, shape) for raw in raw_images]


def _image(raw: JsonObject, node_id: str, shape: Shape) -> ImageRef:
    return ImageRef(
        filename=shape.text(shape.key(raw, "filename", "image"), "image.filename"),
        subfolder=shape.opt_text(raw.get("subfolder"), "image.subfolder") or "",
        type=shape.opt_text(raw.get("type"), "image.type") or "output",
        node_id=node_id,
    )


def parse_system_stats(body: Any, route: str) -> SystemStats:
    shape = Shape(route)
    obj = shape.obj(body, "body")
    system = shape.obj(shape.key(obj, "system", "body"), "system")
    devices = shape.array(obj.get("devices", []), "devices")
    return SystemStats(
        comfyui_version=shape.opt_text(system.get("comfyui_version"), "system.comfyui_version"),
        os=shape.opt_text(system.get("os"), "system.os"),
        python_version=shape.opt_text(system.get("python_version"), "system.python_version"),
        devices=tuple(_device(shape.obj(raw, "devices[]"), shape) for raw in devices),
    )


def _device(raw: JsonObject, shape: Shape) -> Device:
    return Device(
        name=shape.text(shape.key(raw, "name", "device"), "device.name"),
        type=shape.text(shape.key(raw, "type", "device"), "device.type"),
        vram_total=shape.opt_integer(raw.get("vram_total"), "device.vram_total"),
        vram_free=shape.opt_integer(raw.get("vram_free"), "device.vram_free"),
    )


def parse_object_info(body: Any, route: str) -> dict[str, JsonObject]:
    """``/object_info``: node class name → its definition (checked to be objects)."""
    shape = Shape(route)
    obj = shape.obj(body, "body")
    return {name: shape.obj(spec, f"object_info[{name!r}]") for name, spec in obj.items()}
