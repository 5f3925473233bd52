"""Telling a positive prompt from a negative one by where its node is wired: the conditioning
that reaches a sampler's `positive` or `negative` input."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.presets.api_format import is_link, node_inputs

if TYPE_CHECKING:
    from collections.abc import Mapping

    from core.catalogue import Catalogue

ROLES = {"positive": "Positive prompt", "negative": "Negative prompt"}
CONDITIONING = "CONDITIONING"


def prompt_roles(api: Mapping[str, Any], catalogue: Catalogue) -> dict[str, str]:
    """ "Positive prompt" or "Negative prompt" for each node id with a text box whose
    conditioning reaches only one kind of sampler input (through conditioning nodes too)."""
    found: dict[str, set[str]] = {}
    for node in api.values():
        for name, value in node_inputs(node).items():
            if name in ROLES and is_link(value):
                for node_id in _upstream(api, catalogue, str(value[0])):
                    found.setdefault(node_id, set()).add(ROLES[name])
    return {
        node_id: roles.pop()
        for node_id, roles in found.items()
        if len(roles) == 1 and _has_text_box(api[node_id], catalogue)
    }


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


def _has_text_box(node: Any, catalogue: Catalogue) -> bool:
    cls = catalogue.get(str(node.get("class_type")))
    return bool(cls and any(spec.options.get("multiline") for spec in cls.inputs))
