"""Parsing of ``node_errors`` and of the 400 body of ``POST /prompt`` into core.errors types."""

from __future__ import annotations

from typing import Any

from core.comfy.shapes import JsonObject, Shape
from core.errors import ComfyRejected, NodeError, PromptError


def parse_node_errors(value: object, shape: Shape) -> tuple[NodeError, ...]:
    """Flatten ``{node_id: {class_type, errors: [...], dependent_outputs}}`` into NodeErrors."""
    found: list[NodeError] = []
    for node_id, raw in shape.obj(value, "node_errors").items():
        found.extend(_node_errors_of(node_id, shape.obj(raw, f"node_errors[{node_id!r}]"), shape))
    return tuple(found)


def _node_errors_of(node_id: str, node: JsonObject, shape: Shape) -> list[NodeError]:
    what = f"node_errors[{node_id!r}]"
    class_type = shape.opt_text(node.get("class_type"), f"{what}.class_type") or ""
    outputs = shape.text_list(node.get("dependent_outputs", []), f"{what}.dependent_outputs")
    errors = shape.array(shape.key(node, "errors", what), f"{what}.errors")
    return [
        _node_error(node_id, class_type, outputs, shape.obj(raw, f"{what}.errors[]"), shape)
        for raw in errors
    ]


def _node_error(
    node_id: str, class_type: str, outputs: tuple[str, ...], raw: JsonObject, shape: Shape
) -> NodeError:
    what = f"node_errors[{node_id!r}].errors[]"
    extra = raw.get("extra_info")
    input_name = extra.get("input_name") if isinstance(extra, dict) else None
    return NodeError(
        node_id=node_id,
        class_type=class_type,
        type=shape.text(shape.key(raw, "type", what), f"{what}.type"),
        message=shape.text(shape.key(raw, "message", what), f"{what}.message"),
        details=shape.opt_text(raw.get("details"), f"{what}.details") or "",
        input_name=input_name if isinstance(input_name, str) else None,
        dependent_outputs=outputs,
    )


def parse_rejection(body: Any, route: str) -> ComfyRejected:
    """Turn the 400 body ``{"error": {...}, "node_errors": {...}}`` into a ComfyRejected."""
    shape = Shape(route)
    obj = shape.obj(body, "body")
    raw_error = shape.key(obj, "error", "body")
    if isinstance(raw_error, str):  # some proxies and older servers send a bare message
        error = PromptError(type="error", message=raw_error)
    else:
        error = _prompt_error(shape.obj(raw_error, "error"), shape)
    node_errors = parse_node_errors(obj.get("node_errors", {}), shape)
    return ComfyRejected(error, node_errors, route)


def _prompt_error(raw: JsonObject, shape: Shape) -> PromptError:
    return PromptError(
        type=shape.text(shape.key(raw, "type", "error"), "error.type"),
        message=shape.text(shape.key(raw, "message", "error"), "error.message"),
        details=shape.opt_text(raw.get("details"), "error.details") or "",
    )
