"""A server's offer as JSON, the form the ledger keeps it in (so every process, the CLI and the
window included, sees what the controller last read from each server)."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from core.placement.model_inputs import ModelInput
from core.placement.server_offer import ModelList, ServerOffer


def offer_to_json(offer: ServerOffer) -> dict[str, Any]:
    """The offer as plain JSON: node classes sorted, each model input with its folder and files."""
    return {
        "node_classes": sorted(offer.node_classes),
        "model_inputs": [
            {
                "class_type": key.class_type,
                "input": key.input,
                "folder": listed.folder,
                "files": sorted(listed.files),
            }
            for key, listed in sorted(offer.model_inputs.items())
        ],
    }


def offer_from_json(data: Any) -> ServerOffer:
    """An offer back from `offer_to_json`'s form; what is not of that shape reads as nothing
    offered (a damaged row places no job there rather than every job)."""
    if not isinstance(data, dict):
        return ServerOffer(frozenset())
    classes = data.get("node_classes")
    inputs: dict[ModelInput, ModelList] = {}
    for entry in data.get("model_inputs") or ():
        if not isinstance(entry, dict):
            continue
        class_type, name, folder = entry.get("class_type"), entry.get("input"), entry.get("folder")
        files = entry.get("files")
        if not (isinstance(class_type, str) and isinstance(name, str) and isinstance(files, list)):
            continue
        inputs[ModelInput(class_type, name)] = ModelList(
            folder if isinstance(folder, str) else None,
            frozenset(f for f in files if isinstance(f, str)),
        )
    node_classes = (
        frozenset(c for c in classes if isinstance(c, str))
        if isinstance(classes, list)
        else frozenset()
    )
    return ServerOffer(node_classes, MappingProxyType(inputs))
