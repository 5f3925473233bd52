"""Queueing a batch: compose jobs from a stored preset and write them to the ledger."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.batch.batch_title import AxisFacts, default_title
from core.batch.compose import compose, expand_spec
from core.batch.workflow import retry_smaller, shrinkable
from core.catalogue import Catalogue
from core.errors import IllegalTransition, PresetError
from core.job_state import can_retry_smaller
from core.ledger import NewJob
from core.ledger.owners import default_requester
from core.ledger.settings import wildcards_folder
from core.presets import Preset, preset_from_api

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Sequence

    from core.batch.spec import BatchSpec, JobSpec
    from core.ledger import BatchRecord, JobRecord, Ledger, PresetRecord


def stored_preset(
    record: PresetRecord,
    catalogue: Catalogue | None = None,
    seed_inputs: Sequence[str] | None = None,
) -> Preset:
    """A stored preset as the composer needs it.

    ``seed_inputs`` (``NODE.INPUT``) replaces the detected seeds; by default the seed inputs
    chosen when the preset was added (``info["seed_inputs"]``) do.

    Raises:
        PresetError: naming the preset (one stored before a check refused such content).
    """
    chosen = seed_inputs or record.info.get("seed_inputs") or None
    source = Path(record.source or record.name)
    try:
        return preset_from_api(record.api_workflow, source, catalogue, seed_inputs=chosen)
    except PresetError as exc:
        raise PresetError(f"preset {record.name!r}: {exc}") from None


def composed_batch(
    ledger: Ledger,
    preset_name: str,
    spec: BatchSpec,
    catalogue: Catalogue | None = None,
    seed_inputs: Sequence[str] | None = None,
) -> tuple[BatchSpec, list[JobSpec]]:
    """The batch ``spec`` of the named preset as it would be queued, nothing written: the spec
    with its "all" wildcards made axes (`expand_spec`, what the batch stores) and its jobs,
    wildcards read from the `WILDCARDS_FOLDER` setting's folder.

    Raises:
        CompositionError: the spec cannot be composed (names the node and input).
    """
    preset = stored_preset(ledger.presets.get(preset_name), catalogue, seed_inputs)
    folder = wildcards_folder(ledger)
    expanded = expand_spec(preset, spec, catalogue or Catalogue.bundled(), folder)
    return expanded, compose(preset, expanded, catalogue, folder)


def queue_batch(
    ledger: Ledger,
    preset_name: str,
    spec: BatchSpec,
    catalogue: Catalogue | None = None,
    seed_inputs: Sequence[str] | None = None,
    check: Callable[[str, int, int], None] | None = None,
    name: str | None = None,
) -> tuple[BatchRecord, list[str]]:
    """Compose the batch ``spec`` of the named preset and create its pending jobs (the batch
    called ``name`` when given, else by its preset and what varies: `default_title`).

    ``check`` is called with the requester, the number of jobs composed and their priority
    before any is created, in the transaction that creates them (two batches queued at once
    cannot both pass it on the same room): what it raises refuses the batch whole (backpressure:
    `core.controller.backpressure`).

    The batch's stored spec is ``spec`` with its "all" wildcards made axes (`composed_batch`),
    so viewers see them as axes.

    Raises:
        CompositionError: the spec cannot be composed (names the node and input).
    """
    spec, jobs = composed_batch(ledger, preset_name, spec, catalogue, seed_inputs)
    if not (name and name.strip()):
        name = _title(ledger, preset_name, spec, jobs, catalogue)
    requester = spec.requester or default_requester()
    new = [NewJob(dict(job.params), job.requester or requester, job.priority) for job in jobs]
    with ledger.handle.joined():
        if check is not None:
            check(requester, len(jobs), spec.priority)
        return ledger.create_batch(
            preset_name,
            new,
            requester=requester,
            priority=spec.priority,
            spec=_spec_json(spec),
            name=name,
        )


def queue_smaller(
    ledger: Ledger,
    job_id: str,
    factor: float = 0.75,
    shrink: Collection[str] | None = None,
    check: Callable[[str, int, int], None] | None = None,
) -> str:
    """ "Retry smaller": a new job in the same batch with what ``shrink`` names (size, batch
    size; see ``retry_smaller``) reduced, from an OOM failure; ``check`` as for
    ``queue_batch``."""
    job = _failed_out_of_memory(ledger, job_id)
    api = ledger.workflow(ledger.batch(job.batch).workflow_hash)
    params = retry_smaller(api, job.params, factor, shrink)
    with ledger.handle.joined():  # the check and the write together, as in queue_batch
        if check is not None:
            check(job.requester, 1, job.priority)
        return ledger.add_jobs(job.batch, [NewJob(params, job.requester, job.priority)])[0]


def shrink_choices(ledger: Ledger, job_id: str) -> dict[str, dict[str, int]]:
    """What retry smaller could reduce in an out-of-memory job (see ``shrinkable``)."""
    job = _failed_out_of_memory(ledger, job_id)
    return shrinkable(ledger.workflow(ledger.batch(job.batch).workflow_hash), job.params)


def _failed_out_of_memory(ledger: Ledger, job_id: str) -> JobRecord:
    job = ledger.job(job_id)
    if not can_retry_smaller(job.state, job.reason):
        raise IllegalTransition(f"job {job_id} did not fail out of memory: retry it instead")
    return job


def _title(
    ledger: Ledger,
    preset_name: str,
    spec: BatchSpec,
    jobs: Sequence[JobSpec],
    catalogue: Catalogue | None,
) -> str:
    """The default title of the batch as composed: its seeds counted from its jobs (one per
    input counts each input's once), its workflow read only for a grid."""
    facts = None
    if spec.grid:
        api = ledger.presets.get(preset_name).api_workflow
        facts = AxisFacts.of(api, catalogue or Catalogue.bundled())
    seeds = len({tuple(sorted(job.seeds.items())) for job in jobs})
    return default_title(preset_name, _spec_json(spec), facts, seeds)


def _spec_json(spec: BatchSpec) -> dict[str, Any]:
    """The batch's spec as stored (`batch.spec`): grid as a list of {input, values}, zips as
    lists of inputs, wildcards as {input: mode}."""
    data = asdict(spec)
    overrides = spec.overrides
    data["overrides"] = dict(overrides) if not isinstance(overrides, tuple) else list(overrides)
    data["grid"] = [{"input": axis.input, "values": list(axis.values)} for axis in spec.grid]
    data["zips"] = [list(group) for group in spec.zips]
    data["wildcards"] = dict(spec.wildcards)
    return data
