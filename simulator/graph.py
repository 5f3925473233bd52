"""Prompt graph helpers: links, input signatures for the cache, and ComfyUI's execution order."""

from __future__ import annotations

import hashlib
import json
from typing import Any

Prompt = dict[str, Any]


def is_link(value: Any) -> bool:
    return (
        isinstance(value, list)
        and len(value) == 2
        and isinstance(value[0], str)
        and isinstance(value[1], int)
    )


def signatures(prompt: Prompt, outputs: list[str]) -> dict[str, str]:
    """A digest per node reachable from ``outputs``: class, literal inputs and ancestors."""
    sigs: dict[str, str] = {}

    def sig(node_id: str) -> str:
        if node_id not in sigs:
            node = prompt[node_id]
            parts: list[Any] = [node["class_type"]]
            for name in sorted(node["inputs"]):
                value = node["inputs"][name]
                parts.append([name, ["link", sig(value[0]), value[1]] if is_link(value) else value])
            text = json.dumps(parts, sort_keys=True, default=str)
            sigs[node_id] = hashlib.sha256(text.encode()).hexdigest()
        return sigs[node_id]

    for output in outputs:
        sig(output)
    return sigs


def execution_order(
    prompt: Prompt, outputs: list[str], cached: set[str], is_output: Any
) -> list[str]:
    """The order ComfyUI's ExecutionList runs nodes: ready output nodes first, else first added.

    Cached ancestors are not added; cached output nodes are (they re-emit their UI output).
    """
    pending: dict[str, set[str]] = {}
    for output in outputs:
        stack = [output]
        while stack:
            node_id = stack.pop()
            if node_id in pending:
                continue
            pending[node_id] = set()
            for value in prompt[node_id]["inputs"].values():
                if is_link(value) and value[0] not in cached:
                    pending[node_id].add(value[0])
                    stack.append(value[0])
    order: list[str] = []
    while pending:
        ready = [n for n, blockers in pending.items() if not blockers - set(order)]
        pick = next((n for n in ready if is_output(n)), ready[0])
        order.append(pick)
        del pending[pick]
    return order
