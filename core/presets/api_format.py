"""Recognising and validating API-format workflows (`{id: {class_type, inputs}}`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.errors import PresetError
from core.workflow_graph import is_link, node_inputs

__all__ = [
    "is_api_workflow",
    "is_link",
    "node_inputs",
    "validate_api_workflow",
    "wrap_value",
]


def is_api_workflow(data: object) -> bool:
    """True for a non-empty mapping whose values all carry a `class_type` (ComfyUI's API format)."""
    return (
        isinstance(data, Mapping)
        and bool(data)
        and all(isinstance(n, Mapping) and "class_type" in n for n in data.values())
    )


def validate_api_workflow(data: Mapping[str, Any]) -> dict[str, Any]:
    """Check an API workflow's shape and links; return it as a plain dict."""
    for node_id, node in data.items():
        if not isinstance(node, Mapping):
            raise PresetError(f"node {node_id} is not an object")
        if not isinstance(node.get("class_type"), str) or not node["class_type"]:
            raise PresetError(f"node {node_id} has no class_type")
        inputs = node.get("inputs", {})
        if not isinstance(inputs, Mapping):
            raise PresetError(f"node {node_id} ({node['class_type']}): inputs is not an object")
        for name, value in inputs.items():
            if is_link(value) and value[0] not in data:
                raise PresetError(
                    f"node {node_id} ({node['class_type']}), input {name!r}: "
                    f"link to node {value[0]}, which does not exist"
                )
    return {str(k): v for k, v in data.items()}


def wrap_value(value: Any) -> Any:
    """Literal lists are wrapped so the server does not read them as links."""
    return {"__value__": value} if isinstance(value, list) else value
