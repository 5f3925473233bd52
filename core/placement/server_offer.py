"""What one ComfyUI server can run: its node classes and the model files each model input lists,
read from its `/object_info` and refreshed from `/models/<folder>`."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from core.catalogue import Catalogue, InputSpec, NodeClass
from core.placement.model_inputs import ModelInput, is_model_file, known_folder

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping


@dataclass(frozen=True)
class ModelList:
    """The files one model input lists, and its folder (None: a custom node's, folder unknown)."""

    folder: str | None
    files: frozenset[str]


@dataclass(frozen=True)
class ServerOffer:
    """What a server can run: node classes, and the files of every model-file input.

    A value is checked against the list of the input that takes it, as ComfyUI's validation
    does (a combo's value must be one of its choices), so `VAELoader.vae_name` keeps
    `pixel_space` beside the files of `vae`.
    """

    node_classes: frozenset[str]
    model_inputs: Mapping[ModelInput, ModelList] = field(
        default_factory=lambda: MappingProxyType({})
    )

    def has_class(self, class_type: str) -> bool:
        return class_type in self.node_classes

    def files_of(self, model_input: ModelInput) -> frozenset[str] | None:
        """The files `model_input` lists here, or None when it is not a model-file input here."""
        listed = self.model_inputs.get(model_input)
        return None if listed is None else listed.files

    def folder_files(self, folder: str) -> frozenset[str]:
        """Every file any input of `folder` lists (what `/models/<folder>` would answer)."""
        return frozenset(
            name
            for listed in self.model_inputs.values()
            if listed.folder == folder
            for name in listed.files - BUILT_IN_CHOICES
        )

    @property
    def folders(self) -> frozenset[str]:
        return frozenset(m.folder for m in self.model_inputs.values() if m.folder is not None)

    def listing(self) -> dict[str, list[str]]:
        """Each folder's files, sorted (for `batchline servers`, Settings and the API); a
        custom node's files of unknown folder under its `Class.input`."""
        known = {folder: sorted(self.folder_files(folder)) for folder in sorted(self.folders)}
        custom = {
            str(key): sorted(listed.files)
            for key, listed in sorted(self.model_inputs.items())
            if listed.folder is None
        }
        return known | custom

    def with_folder(self, folder: str, files: Iterable[str]) -> ServerOffer:
        """This offer with `folder`'s inputs listing `files` (a `/models/<folder>` answer).

        Choices that are no file (VAELoader's `pixel_space`, `taesd`) stay as they were.
        """
        new = frozenset(files)
        inputs = {
            key: _relisted(listed, new) if listed.folder == folder else listed
            for key, listed in self.model_inputs.items()
        }
        return replace(self, model_inputs=MappingProxyType(inputs))


# VAELoader's choices that are no file of `vae` (nodes.py VAELoader.vae_list: the tiny
# decoders, built from `vae_approx` pairs, and the identity).
BUILT_IN_CHOICES = frozenset({"pixel_space", "taesd", "taesdxl", "taesd3", "taef1"})


def _relisted(listed: ModelList, files: frozenset[str]) -> ModelList:
    return ModelList(listed.folder, (listed.files & BUILT_IN_CHOICES) | files)


def offer_from_object_info(object_info: Catalogue | Mapping[str, Any]) -> ServerOffer:
    """A server's offer from its `/object_info` (a Catalogue or the decoded JSON)."""
    catalogue = (
        object_info
        if isinstance(object_info, Catalogue)
        else Catalogue.from_object_info(object_info)
    )
    inputs: dict[ModelInput, ModelList] = {}
    for class_type in catalogue:
        node = catalogue.get(class_type)
        if node is not None:
            inputs.update(_model_inputs(node))
    return ServerOffer(frozenset(catalogue), MappingProxyType(inputs))


def _model_inputs(node: NodeClass) -> Iterable[tuple[ModelInput, ModelList]]:
    for spec in node.inputs:
        key = ModelInput(node.name, spec.name)
        folder = known_folder(key)
        if spec.is_combo and (folder is not None or _lists_model_files(spec)):
            yield key, ModelList(folder, frozenset(str(c) for c in spec.choices))


def _lists_model_files(spec: InputSpec) -> bool:
    """A custom node's combo listing model files: non-empty, every choice a model file.

    An empty combo is not counted: a fixed list of options is never empty, but neither can an
    empty list say what it would hold; ComfyUI refuses its every value anyway.
    """
    return bool(spec.choices) and all(is_model_file(choice) for choice in spec.choices)


def listed_names(answer: Any) -> frozenset[str]:
    """The names of a `GET /models` answer (folders) or a `GET /models/<folder>` one (files):
    a JSON list of strings; anything else in it is dropped."""
    if not isinstance(answer, list):
        return frozenset()
    return frozenset(name for name in answer if isinstance(name, str) and name)
