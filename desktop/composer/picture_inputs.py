"""The editor's upload button that frontends wrote into the prompt as a bogus input
("upload", "choose file to upload", beside LoadImage's ``image``): never shown as a parameter.
Which inputs take a picture is the catalogue's (``Catalogue.picture_inputs``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.catalogue import Catalogue
    from core.presets import Parameter

UPLOAD_BUTTONS = frozenset({"upload", "choose file to upload"})


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
    return any(spec.takes_upload for spec in cls.inputs)
