"""The editor's upload button that ComfyUI's frontend writes into the API prompt as a bogus
input ("upload", "choose file to upload", beside LoadImage's ``image``): never a parameter, in
any door (the composer, its axes, ``batchline preset show``, the HTTP API). Which inputs take a
picture is the catalogue's (``Catalogue.picture_inputs``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.catalogue import Catalogue

UPLOAD_BUTTONS = frozenset({"upload", "choose file to upload"})


def is_upload_button(class_type: str, input_name: str, catalogue: Catalogue) -> bool:
    """The frontend's upload button serialised as an input: a name the node class does not
    have, beside an input taking an uploaded picture."""
    if input_name not in UPLOAD_BUTTONS:
        return False
    cls = catalogue.get(class_type)
    if cls is None:
        return True  # no catalogue says otherwise: the button's name is never a real input here
    if cls.input(input_name) is not None:
        return False
    return any(spec.takes_upload for spec in cls.inputs)
