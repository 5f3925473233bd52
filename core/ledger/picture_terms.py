"""What a finished job is found by in the picture search: its prompts, seeds, models, LoRAs
and varied values, read from its batch's workflow with the job's values applied.

The ledger indexes a job when it succeeds (``picture_index``), so this reads only what the
ledger floor may: the bundled node catalogue and the model-input table of ``core.placement``.
Telling a positive prompt from a negative one follows ``core.presets.prompt_roles`` (the
conditioning that reaches a sampler's ``positive`` or ``negative`` input); a test checks that
the two agree on the bundled presets.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.placement.model_inputs import ModelInput, is_model_file, known_folder

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

    from core.catalogue import Catalogue

SEED_INPUTS = frozenset({"seed", "noise_seed"})  # as core.presets.seeds.SEED_NAMES
_ROLES = ("positive", "negative")
_CONDITIONING = "CONDITIONING"
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
        roles = _prompt_roles(api, catalogue)
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
        for name, value in _inputs(node).items():
            yield str(node_id), class_type, name, None if _is_link(value) else value


def _inputs(node: Any) -> Mapping[str, Any]:
    inputs = node.get("inputs") if isinstance(node, dict) else None
    return inputs if isinstance(inputs, dict) else {}


def _is_link(value: object) -> bool:
    return (
        isinstance(value, list)
        and len(value) == 2
        and isinstance(value[0], str)
        and isinstance(value[1], int)
    )


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


def _prompt_roles(workflow: Mapping[str, Any], catalogue: Catalogue) -> dict[str, str]:
    """ "positive" or "negative" for each node whose conditioning reaches only one kind of
    sampler input (through conditioning nodes too)."""
    found: dict[str, set[str]] = {}
    for node in workflow.values():
        for name, value in _inputs(node).items():
            if name in _ROLES and _is_link(value):
                for node_id in _upstream(workflow, catalogue, str(value[0])):
                    found.setdefault(node_id, set()).add(name)
    return {node_id: roles.pop() for node_id, roles in found.items() if len(roles) == 1}


def _upstream(workflow: Mapping[str, Any], catalogue: Catalogue, start: str) -> set[str]:
    """``start`` and every node feeding it conditioning, directly or not."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        node_id = todo.pop()
        if node_id in seen or node_id not in workflow:
            continue
        seen.add(node_id)
        cls = catalogue.get(str(workflow[node_id].get("class_type")))
        for name, value in _inputs(workflow[node_id]).items():
            spec = cls.input(name) if cls else None
            if _is_link(value) and spec is not None and spec.type == _CONDITIONING:
                todo.append(str(value[0]))
    return seen


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
