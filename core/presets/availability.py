"""The choices of a workflow (model, LoRA, VAE, image names...) that a server does not list:
ComfyUI refuses such a prompt ("value not in list"), so the artist is told before queueing."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from core.catalogue import Catalogue
    from core.presets.model import Parameter


def unlisted_choices(
    parameters: Iterable[Parameter], values: Mapping[str, Any], catalogue: Catalogue
) -> list[tuple[Parameter, Any]]:
    """Each combo parameter whose value (from `values` by `NODE_ID.INPUT`, else its own) the
    catalogue's list for that input lacks; a node class or input the catalogue does not know
    is left to the server's own validation."""
    unlisted = []
    for parameter in parameters:
        cls = catalogue.get(parameter.class_type)
        spec = cls.input(parameter.ref.input) if cls else None
        if spec is None or not spec.is_combo:
            continue
        value = values.get(str(parameter.ref), parameter.value)
        if value not in spec.choices:
            unlisted.append((parameter, value))
    return unlisted
