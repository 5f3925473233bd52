"""The choices of a workflow (model, LoRA, VAE, image names...) that a server does not list:
ComfyUI refuses such a prompt ("value not in list"), so the artist is told before queueing,
server by server, with each server's own files for the input to choose from instead."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from core.placement.model_inputs import ModelInput, is_model_file, known_folder

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from core.catalogue import Catalogue, InputSpec
    from core.presets.model import Parameter


class ChoiceKind(StrEnum):
    """What an unlisted value names, as the artist reads it."""

    model = "model"  # a file of a model folder (checkpoint, LoRA, VAE...)
    picture = "picture"  # a file of the server's input folder (LoadImage's image)
    choice = "choice"  # any other list (a sampler, a custom node's mode)


@dataclass(frozen=True)
class Unlisted:
    """A value of the workflow some servers do not list (``lacking``), others do
    (``having``); ``offered`` holds each lacking server's own choices for that input."""

    parameter: Parameter
    value: Any
    kind: ChoiceKind
    lacking: tuple[str, ...]
    having: tuple[str, ...] = ()
    offered: Mapping[str, tuple[Any, ...]] = field(default_factory=dict, compare=False)


def unlisted_choices(
    parameters: Iterable[Parameter], values: Mapping[str, Any], catalogue: Catalogue
) -> list[tuple[Parameter, Any]]:
    """Each combo parameter whose value (from `values` by `NODE_ID.INPUT`, else its own) the
    catalogue's list for that input lacks; a node class or input the catalogue does not know
    is left to the server's own validation."""
    unlisted = []
    for parameter in parameters:
        spec = _combo(parameter, catalogue)
        if spec is None:
            continue
        value = values.get(str(parameter.ref), parameter.value)
        if value not in spec.choices:
            unlisted.append((parameter, value))
    return unlisted


def unlisted_by_server(
    parameters: Sequence[Parameter],
    values: Mapping[str, Any],
    catalogues: Sequence[tuple[str, Catalogue]],
) -> list[Unlisted]:
    """The values (from `values`, else the parameters' own) some of the servers (address and
    catalogue, in their order) do not list, each saying which servers lack it and which have
    it, in the parameters' order."""
    found: list[Unlisted] = []
    for parameter in parameters:
        value = values.get(str(parameter.ref), parameter.value)
        specs = [(a, s) for a, c in catalogues if (s := _combo(parameter, c)) is not None]
        lacking = [(address, spec) for address, spec in specs if value not in spec.choices]
        if not lacking:
            continue
        having = tuple(address for address, spec in specs if value in spec.choices)
        found.append(
            Unlisted(
                parameter,
                value,
                _kind(parameter, lacking[0][1], value),
                tuple(address for address, _spec in lacking),
                having,
                {address: spec.choices for address, spec in lacking},
            )
        )
    return found


def missing_classes(
    workflow: Mapping[str, Any], catalogues: Sequence[tuple[str, Catalogue]]
) -> dict[str, list[str]]:
    """Per server (address), the node classes of `workflow` its catalogue lacks, sorted."""
    types = {str(n.get("class_type")) for n in workflow.values() if isinstance(n, Mapping)}
    lacked = {address: sorted(t for t in types if t not in c) for address, c in catalogues}
    return {address: classes for address, classes in lacked.items() if classes}


def _combo(parameter: Parameter, catalogue: Catalogue) -> InputSpec | None:
    cls = catalogue.get(parameter.class_type)
    spec = cls.input(parameter.ref.input) if cls else None
    return spec if spec is not None and spec.is_combo else None


def _kind(parameter: Parameter, spec: InputSpec, value: Any) -> ChoiceKind:
    if spec.takes_upload:
        return ChoiceKind.picture
    folder = known_folder(ModelInput(parameter.class_type, parameter.ref.input))
    return ChoiceKind.model if folder is not None or is_model_file(value) else ChoiceKind.choice
