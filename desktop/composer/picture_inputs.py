"""Which of a workflow's inputs take a picture from the artist's disk (those the catalogue
marks ``image_upload``: LoadImage's ``image``, LoadImageMask's ...), and the editor's upload
button that frontends wrote into the prompt as a bogus input ("upload", "choose file to
upload"): never shown as a parameter."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.catalogue import Catalogue
    from core.presets import Parameter

UPLOAD_BUTTONS = frozenset({"upload", "choose file to upload"})


def picture_inputs(api: Mapping[str, Any], catalogue: Catalogue) -> dict[str, str]:
    """``NODE.INPUT -> class_type`` of every input of ``api`` taking an uploaded picture."""
    found: dict[str, str] = {}
    for node_id, node in api.items():
        if not isinstance(node, Mapping):
            continue
        class_type = str(node.get("class_type"))
        cls = catalogue.get(class_type)
        if cls is None:
            continue
        for name in node.get("inputs") or {}:
            spec = cls.input(name)
            if spec is not None and spec.options.get("image_upload"):
                found[f"{node_id}.{name}"] = class_type
    return found


def is_upload_button(parameter: Parameter, catalogue: Catalogue) -> bool:
    """The frontend's upload button serialised as an input: a name the node class does not
    have, beside an input taking an uploaded picture."""
    if parameter.ref.input not in UPLOAD_BUTTONS:
        return False
    cls = catalogue.get(parameter.class_type)
    if cls is None:
        return True  # no catalogue says otherwise: the button's name is never a real input here
    if cls.input(parameter.ref.input) is not None:
        return False
    return any(spec.options.get("image_upload") for spec in cls.widgets)
