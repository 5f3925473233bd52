"""Reading an API-format workflow's graph (`{id: {class_type, inputs}}`): its links, a node's
inputs, and which nodes' conditioning reaches a sampler's `positive` or `negative` input.

A base module of core, below the ledger and the presets, so the picture index
(`core.ledger.picture_terms`) and the composer's names (`core.presets.prompt_roles`) read
a workflow one way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.catalogue import Catalogue

SAMPLER_ROLES = ("positive", "negative")
CONDITIONING = "CONDITIONING"


def is_link(value: object) -> bool:
    """A link is `[source_node_id, output_index]`."""
    return (
        isinstance(value, list)
        and len(value) == 2
        and isinstance(value[0], str)
        and isinstance(value[1], int)
        and not isinstance(value[1], bool)
    )


def node_inputs(node: object) -> Mapping[str, Any]:
    """A node's `inputs` (none when the node or its inputs are not a mapping)."""
    inputs = node.get("inputs") if isinstance(node, Mapping) else None
    return inputs if isinstance(inputs, Mapping) else {}


def conditioning_roles(api: Mapping[str, Any], catalogue: Catalogue) -> dict[str, str]:
    """ "positive" or "negative" for each node whose conditioning reaches only one kind of
    sampler input, directly or through conditioning nodes."""
    found: dict[str, set[str]] = {}
    for node in api.values():
        for name, value in node_inputs(node).items():
            if name in SAMPLER_ROLES and is_link(value):
                for node_id in _upstream(api, catalogue, str(value[0])):
                    found.setdefault(node_id, set()).add(name)
    return {node_id: roles.pop() for node_id, roles in found.items() if len(roles) == 1}


def _upstream(api: Mapping[str, Any], catalogue: Catalogue, start: str) -> set[str]:
    """`start` and every node feeding it conditioning, directly or not."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        node_id = todo.pop()
        if node_id in seen or node_id not in api:
            continue
        seen.add(node_id)
        cls = catalogue.get(str(api[node_id].get("class_type")))
        for name, value in node_inputs(api[node_id]).items():
            spec = cls.input(name) if cls else None
            if is_link(value) and spec is not None and spec.type == CONDITIONING:
                todo.append(str(value[0]))
    return seen
