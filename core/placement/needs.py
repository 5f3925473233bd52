"""What a job needs from a server: the node classes of its API prompt and every model file it
names, each with where it is named (node, title, input) and its folder."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from core.placement.model_inputs import (
    MAIN_MODEL_FOLDERS,
    ModelInput,
    is_model_file,
    known_folder,
)


@dataclass(frozen=True)
class ModelNeed:
    """One model file a prompt names: the file, its folder (None: unknown) and where it is."""

    name: str
    folder: str | None
    node_id: str
    input: str
    class_type: str
    title: str | None = None

    @property
    def model_input(self) -> ModelInput:
        return ModelInput(self.class_type, self.input)


ModelKey = frozenset[str]
"""A job's main models (its checkpoints and diffusion models): what switching costs a load."""


@dataclass(frozen=True)
class JobNeeds:
    """Everything a job needs a server to have (its files in the prompt's order)."""

    node_classes: frozenset[str]
    models: tuple[ModelNeed, ...] = ()

    @property
    def files(self) -> frozenset[str]:
        return frozenset(need.name for need in self.models)

    @property
    def main_models(self) -> ModelKey:
        """The job's checkpoints and diffusion models (base and refiner both, for SDXL's)."""
        return frozenset(n.name for n in self.models if n.folder in MAIN_MODEL_FOLDERS)


def job_needs(prompt: Mapping[str, Any]) -> JobNeeds:
    """The needs of an API-format prompt (node id → {class_type, inputs, _meta}).

    A model file is a value of one of ComfyUI's own model inputs, or (a custom node's) a
    string ending in a model extension. Links (`[node_id, slot]`) are not values; malformed
    nodes are skipped (the server's validation says what is wrong with them).
    """
    nodes = [(str(node_id), node) for node_id, node in prompt.items() if _is_node(node)]
    classes = frozenset(str(node["class_type"]) for _, node in nodes)
    models = tuple(need for node_id, node in nodes for need in _node_needs(node_id, node))
    return JobNeeds(classes, models)


def _is_node(node: object) -> bool:
    return isinstance(node, Mapping) and isinstance(node.get("class_type"), str)


def _node_needs(node_id: str, node: Mapping[str, Any]) -> Iterable[ModelNeed]:
    class_type = str(node["class_type"])
    inputs = node.get("inputs")
    if not isinstance(inputs, Mapping):
        return
    for name, value in inputs.items():
        folder = known_folder(ModelInput(class_type, str(name)))
        if isinstance(value, str) and (folder is not None or is_model_file(value)):
            yield ModelNeed(value, folder, node_id, str(name), class_type, _title(node))


def _title(node: Mapping[str, Any]) -> str | None:
    meta = node.get("_meta")
    title = meta.get("title") if isinstance(meta, Mapping) else None
    return title if isinstance(title, str) and title else None
