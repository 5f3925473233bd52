"""Telling a positive prompt from a negative one by where its node is wired: the conditioning
that reaches a sampler's `positive` or `negative` input."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.workflow_graph import conditioning_roles

if TYPE_CHECKING:
    from collections.abc import Mapping

    from core.catalogue import Catalogue

ROLES = {"positive": "Positive prompt", "negative": "Negative prompt"}


def prompt_roles(api: Mapping[str, Any], catalogue: Catalogue) -> dict[str, str]:
    """ "Positive prompt" or "Negative prompt" for each node id with a text box whose
    conditioning reaches only one kind of sampler input (through conditioning nodes too)."""
    return {
        node_id: ROLES[role]
        for node_id, role in conditioning_roles(api, catalogue).items()
        if _has_text_box(api[node_id], catalogue)
    }


def _has_text_box(node: Any, catalogue: Catalogue) -> bool:
    cls = catalogue.get(str(node.get("class_type")))
    return bool(cls and any(spec.options.get("multiline") for spec in cls.inputs))
