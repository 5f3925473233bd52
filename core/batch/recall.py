"""Recall: the values a job ran with, or a picture was made with, put back in the composer.

A job's values come from the ledger (its batch's workflow with the job's params applied); a
PNG's from the workflow ComfyUI (or Batchline, through ComfyUI) wrote into it. Either is
offered as the values of the stored preset with the same workflow apart from its literal
values, or else as a new preset. A PNG that carries only A1111's ``parameters`` text (made by
another tool) gives what of it has a place in the composer's preset (prompts, seed, steps,
cfg, sampler, size; `core.presets.a1111_fields`), and says what had none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.batch.prompt import OUTPUT_ROOT
from core.batch.spec import SeedMode
from core.batch.workflow import build_workflow
from core.errors import PresetError
from core.presets import preset_from_api, preset_from_bytes
from core.presets.a1111_fields import mapped_values
from core.presets.api_format import is_link
from core.presets.checks import escape_invalid
from core.presets.infotext import parse_infotext
from core.presets.png import is_png, read_text_chunks
from core.presets.storing import free_name, store_preset

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from core.catalogue import Catalogue
    from core.ledger import Ledger
    from core.presets import Preset, SeedInput
    from core.presets.storing import Stored

# The folder `prompt_for` puts a batch's pictures under: `batchline/batch_20261130_0004/`,
# and an attempt's below it (its prompt id).
_BATCH_FOLDER = re.compile(rf"^{OUTPUT_ROOT}/batch_\d{{8}}_\d{{4,}}/(?:[0-9a-f-]{{36}}/)?")


@dataclass(frozen=True)
class Recall:
    """What a job ran with or a picture was made with.

    `values` holds every literal input of the workflow (seeds included), keyed
    `NODE_ID.INPUT`; `preset` names the stored preset whose workflow has the same nodes and
    links (None: none has), `workflow` is the recalled workflow as a preset, to store as a new
    one, and `name` a free preset name for it.
    """

    values: dict[str, Any]
    preset: str | None
    workflow: Preset
    name: str
    unmapped: tuple[str, ...] = ()
    parameters_only: bool = False

    def parameters_text(self, file_name: str) -> str:
        """One sentence on an A1111 picture's parameters put in: where, and what of them was
        not (no place for it in the preset, or no such model or sampler here)."""
        used = f"Used the values of {file_name} in “{self.preset}”"
        if not self.unmapped:
            return used + "."
        return f"{used}; not used: {', '.join(self.unmapped)}."

    def seed_refs(self, inputs: Iterable[SeedInput]) -> list[str]:
        """The `NODE_ID.INPUT` keys of the seed `inputs` that have a recalled value, in order."""
        return [str(seed.ref) for seed in inputs if str(seed.ref) in self.values]

    def seed_state(self, inputs: Iterable[SeedInput]) -> dict[str, Any]:
        """The composer's seed choices that make one job with the recalled seeds of `inputs`.

        Keys as the composer's seed editor keeps them: an explicit list, one seed for all
        inputs when they ran with the same one, else one per input in their order; nothing
        for a workflow without seed inputs (its seed-like values are among `values`).
        """
        refs = self.seed_refs(inputs)
        if not refs:
            return {}
        listed, per_input = one_job_seeds([self.values[ref] for ref in refs])
        return {
            "mode": SeedMode.explicit.value,
            "count": 1,
            "list": ", ".join(str(seed) for seed in listed),
            "per_input": per_input,
            "varied": refs,
        }

    def composer_state(self, inputs: Iterable[SeedInput]) -> dict[str, Any]:
        """A whole composer state (seeds, values, no grid) that queues exactly this job again."""
        return {"seeds": self.seed_state(inputs), "values": dict(self.values), "grid": {}}


def one_job_seeds(seeds: Sequence[Any]) -> tuple[list[Any], bool]:
    """The explicit seed list that makes one job with `seeds` (one per seed input, in their
    order), and whether it is per input: one seed for all inputs when they ran with the same
    one (a seed list never repeats a value), else one per input."""
    per_input = len(set(seeds)) > 1
    return (list(seeds) if per_input else list(seeds[:1])), per_input


def recall_job(ledger: Ledger, job_id: str, catalogue: Catalogue | None = None) -> Recall:
    """The values job `job_id` ran with, and the preset they belong to.

    Its batch's preset is preferred when it still has the same workflow (apart from values).

    Raises:
        UnknownRecord: no such job (or its batch's workflow is gone).
    """
    job = ledger.job(job_id)
    batch = ledger.batch(job.batch)
    api = build_workflow(ledger.workflow(batch.workflow_hash), job.params)
    seeds = _seed_inputs_of(ledger, batch.preset)
    preset = preset_from_api(api, Path(batch.preset), catalogue, seeds)
    return _recall(ledger, preset, batch.preset, f"{batch.preset} {job_id}")


def recall_png(
    ledger: Ledger,
    data: bytes,
    source: Path,
    current: str | None = None,
    catalogue: Catalogue | None = None,
) -> Recall:
    """The workflow and values of a PNG ComfyUI wrote (a Batchline job's too).

    `current` (the composer's preset) is preferred when it matches. The folder Batchline puts
    a batch's pictures in is taken off `filename_prefix` again.

    A PNG with no workflow but A1111's ``parameters`` text gives its values for `current`
    (`recall_parameters`).

    Raises:
        PresetError: naming the file, when it is no PNG or carries no workflow.
    """
    if not is_png(data):
        raise PresetError(f"{escape_invalid(source.name)}: not a PNG")
    try:
        texts = read_text_chunks(data)
    except PresetError:
        texts = {}  # a damaged file: said below, naming it
    if "prompt" not in texts and "workflow" not in texts and "parameters" in texts:
        return recall_parameters(ledger, texts["parameters"], source, current)
    loaded = preset_from_bytes(data, source, catalogue)
    api = _without_batch_folders(loaded.api_workflow)
    preset = replace(
        preset_from_api(api, source, catalogue),
        editor_workflow=loaded.editor_workflow,
        format=loaded.format,
        notices=loaded.notices,
    )
    return _recall(ledger, preset, current, source.stem)


def recall_parameters(
    ledger: Ledger, text: str, source: Path, current: str | None, catalogue: Catalogue | None = None
) -> Recall:
    """The values of an A1111 ``parameters`` text that have a place in preset `current`'s
    workflow (the model by the checkpoint files the servers list), the others named in
    ``unmapped``.

    Raises:
        PresetError: naming the file, when no preset is chosen or none of its values fits.
    """
    file_name = escape_invalid(source.name)
    if current is None or current not in ledger.presets.names():
        raise PresetError(
            f"{file_name} holds another tool's parameters and no workflow: "
            "choose a preset, then drop it again to use its values there"
        )
    record = ledger.presets.get(current)
    values, unmapped = mapped_values(
        record.api_workflow, parse_infotext(text), _checkpoints(ledger)
    )
    if not values:
        raise PresetError(f"{file_name}: none of its parameters has a place in “{current}”")
    api = build_workflow(record.api_workflow, values)
    preset = preset_from_api(api, Path(current), catalogue, _seed_inputs_of(ledger, current))
    name = free_name(ledger.presets.names(), source.stem)
    return Recall(values, current, preset, name, tuple(unmapped), parameters_only=True)


def _checkpoints(ledger: Ledger) -> list[str]:
    """The checkpoint files the servers listed when last read."""
    return sorted(
        {
            name
            for stored in ledger.server_offers.all().values()
            for name in stored.offer.folder_files("checkpoints")
        }
    )


def add_recalled(ledger: Ledger, recall: Recall, name: str) -> Stored:
    """Store the recalled workflow (its values included) as a new preset `name`.

    Raises:
        InputError: the name is not valid, or already taken.
    """
    seeds = [str(seed.ref) for seed in recall.workflow.seed_inputs]
    return store_preset(ledger, name, recall.workflow, seeds, hint="choose another name")


def structure(api: Mapping[str, Any]) -> dict[str, Any]:
    """A workflow apart from its literal values: each node's class and where its links lead."""
    return {
        node_id: (
            node.get("class_type"),
            sorted(
                (name, value) for name, value in node.get("inputs", {}).items() if is_link(value)
            ),
        )
        for node_id, node in api.items()
    }


def matching_preset(
    ledger: Ledger, api: Mapping[str, Any], prefer: str | None = None
) -> str | None:
    """The stored preset with the same structure as `api` (`prefer` first), or None."""
    shape = structure(api)
    records = {record.name: record for record in ledger.presets.all()}
    names = sorted(records, key=str.casefold)
    if prefer in records:
        names.insert(0, names.pop(names.index(prefer)))
    return next((n for n in names if structure(records[n].api_workflow) == shape), None)


def literal_values(api: Mapping[str, Any]) -> dict[str, Any]:
    """Every literal input of a workflow (not a link), keyed `NODE_ID.INPUT`."""
    return {
        f"{node_id}.{input_name}": value
        for node_id, node in api.items()
        for input_name, value in node.get("inputs", {}).items()
        if not is_link(value)
    }


def _recall(ledger: Ledger, preset: Preset, prefer: str | None, name: str) -> Recall:
    api = preset.api_workflow
    match = matching_preset(ledger, api, prefer)
    return Recall(literal_values(api), match, preset, free_name(ledger.presets.names(), name))


def _seed_inputs_of(ledger: Ledger, preset_name: str) -> list[str] | None:
    """The seed inputs chosen by hand for a stored preset (None: detect them)."""
    if preset_name not in ledger.presets.names():
        return None
    chosen = ledger.presets.get(preset_name).info.get("seed_inputs")
    return [str(ref) for ref in chosen] if isinstance(chosen, list) and chosen else None


def _without_batch_folders(api: Mapping[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for node_id, node in api.items():
        inputs = dict(node.get("inputs", {}))
        prefix = inputs.get("filename_prefix")
        if isinstance(prefix, str):
            inputs["filename_prefix"] = _BATCH_FOLDER.sub("", prefix)
        result[node_id] = {**node, "inputs": inputs}
    return result
