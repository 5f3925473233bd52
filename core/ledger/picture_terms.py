"""What a finished job is found by in the picture search: its prompts, seeds, models, LoRAs
and varied values, read from its batch's workflow with the job's values applied.

The ledger indexes a job when it succeeds (``picture_index``), so this reads only what the
ledger floor may: the bundled node catalogue and the model-input table of ``core.placement``.
A positive prompt is told from a negative one by ``core.workflow_graph.conditioning_roles``,
as the composer tells them (``core.presets.prompt_roles``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.placement.model_inputs import ModelInput, is_model_file, known_folder
from core.workflow_graph import conditioning_roles, is_link, node_inputs

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

    from core.catalogue import Catalogue

SEED_INPUTS = frozenset({"seed", "noise_seed"})  # as core.presets.seeds.SEED_NAMES
# Text inputs of node classes the catalogue does not know (custom nodes).
_TEXT_INPUTS = frozenset({"text", "prompt", "text_g", "text_l", "positive", "negative"})


@dataclass(frozen=True)
class JobTerms:
    """The words a job's pictures are found by (each list in workflow order)."""

    prompt: str = ""  # the positive prompts (and any text box not known to be negative)
    negative: str = ""
    seeds: tuple[int, ...] = ()
    models: tuple[str, ...] = ()  # model files but LoRAs: checkpoints, VAEs, upscalers, ...
    loras: tuple[str, ...] = ()
    # Each other varied value ("cfg 7.5", "sampler_name euler"): not the prompts, seeds and
    # models, which have their own fields.
    values: tuple[str, ...] = ()


def job_terms(api: Mapping[str, Any], params: Mapping[str, Any], catalogue: Catalogue) -> JobTerms:
    """The terms of a job of workflow ``api`` with ``params`` (``NODE_ID.INPUT`` -> value)."""
    return WorkflowTerms(api, catalogue).of(params)


class WorkflowTerms:
    """What each input of one workflow says of its jobs: read once per workflow (its links and
    node classes), applied to each job's values (``of``)."""

    def __init__(self, api: Mapping[str, Any], catalogue: Catalogue) -> None:
        roles = conditioning_roles(api, catalogue)
        self._inputs: list[tuple[str, str, str, str | None, Any]] = [
            (
                f"{node_id}.{name}",
                class_type,
                name,
                roles.get(node_id, "positive")
                if _is_text_box(class_type, name, catalogue)
                else None,
                value,
            )
            for node_id, class_type, name, value in _every_input(api)
        ]

    def of(self, params: Mapping[str, Any]) -> JobTerms:
        """The terms of the job with ``params``: its values in place of the workflow's."""
        prompts: dict[str, list[str]] = {"positive": [], "negative": []}
        seeds: list[int] = []
        models: list[str] = []
        loras: list[str] = []
        told: set[str] = set()  # the inputs said above: not said again among the values
        for key, class_type, name, role, literal in self._inputs:
            value = params.get(key, literal)
            if role is not None and isinstance(value, str):
                prompts[role].append(value)
            elif name in SEED_INPUTS and isinstance(value, int) and not isinstance(value, bool):
                seeds.append(value)
            elif isinstance(value, str) and (folder := _model_folder(class_type, name, value)):
                (loras if folder == "loras" else models).append(value)
            else:
                continue
            told.add(key)
        return JobTerms(
            prompt="\n".join(prompts["positive"]),
            negative="\n".join(prompts["negative"]),
            seeds=tuple(seeds),
            models=tuple(models),
            loras=tuple(loras),
            values=tuple(_varied({k: v for k, v in params.items() if k not in told})),
        )


def _every_input(api: Mapping[str, Any]) -> Iterator[tuple[str, str, str, Any]]:
    """(node id, class type, input, value) of each input, in workflow order (a link's value
    None: a job's values may set one)."""
    for node_id, node in api.items():
        class_type = str(node.get("class_type")) if isinstance(node, dict) else ""
        for name, value in node_inputs(node).items():
            yield str(node_id), class_type, name, None if is_link(value) else value


def _is_text_box(class_type: str, name: str, catalogue: Catalogue) -> bool:
    cls = catalogue.get(class_type)
    if cls is None:
        return name in _TEXT_INPUTS
    spec = cls.input(name)
    return bool(spec is not None and spec.options.get("multiline"))


def _model_folder(class_type: str, name: str, value: str) -> str | None:
    """The model folder the input names a file of, or None; a custom node's model file is a
    LoRA when its input or class says so."""
    folder = known_folder(ModelInput(class_type, name))
    if folder is not None or not is_model_file(value):
        return folder
    return "loras" if "lora" in f"{class_type} {name}".lower() else "checkpoints"


def _varied(params: Mapping[str, Any]) -> Iterator[str]:
    """Each varied value but the seeds, after its input's name: "cfg 7.5"."""
    for key in sorted(params):
        name = key.partition(".")[2] or key
        text = _value_text(params[key])
        if name not in SEED_INPUTS and text:
            yield f"{name} {text}"


def _value_text(value: Any) -> str:
    """A value as searched: numbers and texts as written, a picture by its file name."""
    if isinstance(value, dict):  # an input picture: {"picture": {"file": ..}}
        picture = value.get("picture")
        return str(picture.get("file") or "") if isinstance(picture, dict) else ""
    if isinstance(value, list | tuple):
        return ""
    return str(value)
