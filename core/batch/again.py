"""Queue again with this seed: one job with exactly another job's values and seeds, in a batch
of its own, queued by the path every batch takes (``LedgerCommands.queue_again``, with
backpressure)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.batch.recall import literal_values, one_job_seeds, recall_job
from core.batch.spec import BatchSpec, SeedMode, SeedPlan
from core.batch.wildcards import escaped, has_wildcards
from core.errors import PresetError

if TYPE_CHECKING:
    from core.catalogue import Catalogue
    from core.ledger import Ledger


@dataclass(frozen=True)
class Again:
    """The batch that runs job ``job_id`` again: ``queue_batch(preset, spec, seed_inputs)``.

    ``seeds`` holds the job's seed per seed input (``NODE_ID.INPUT``), ``overrides`` the values
    in which it differs from the preset.
    """

    job_id: str
    preset: str
    spec: BatchSpec
    seed_inputs: tuple[str, ...]
    seeds: dict[str, int]

    def describe(self, new_job: str, batch_id: str) -> str:
        """One line for the artist: what was queued, with which seed."""
        seeds = sorted(set(self.seeds.values()))
        said = f"seed {seeds[0]}" if len(seeds) == 1 else f"seeds {', '.join(map(str, seeds))}"
        if not seeds:
            said = "its own seeds"
        return f"Queued {new_job} ({said}, the values of {self.job_id}) in {batch_id}."


def again(ledger: Ledger, job_id: str, catalogue: Catalogue | None = None) -> Again:
    """The one-job batch that sends job ``job_id``'s exact workflow again.

    Raises:
        UnknownRecord: no such job.
        PresetError: no stored preset has the job's workflow any more (deleted, or changed
            beyond its values): "Send to composer" can add it as a new preset.
    """
    recall = recall_job(ledger, job_id, catalogue)
    if recall.preset is None:
        raise PresetError(
            f"job {job_id}: no stored preset has its workflow any more; "
            "send it to the composer to add it as a new preset"
        )
    refs = recall.seed_refs(recall.workflow.seed_inputs)
    seeds = {ref: int(recall.values[ref]) for ref in refs}
    preset_values = literal_values(ledger.presets.get(recall.preset).api_workflow)
    overrides = {
        ref: _as_sent(value)
        for ref, value in recall.values.items()
        if ref not in seeds and preset_values.get(ref, _MISSING) != value
    }
    job = ledger.job(job_id)
    spec = BatchSpec(seeds=_seed_plan(refs, seeds), overrides=overrides, priority=job.priority)
    return Again(job_id, recall.preset, spec, tuple(refs), seeds)


_MISSING = object()


def _as_sent(value: Any) -> Any:
    """A job's value as it was sent: a text's braces escaped, so that a resolved wildcard text
    holding a literal ``{`` is not expanded again."""
    return escaped(value) if isinstance(value, str) and has_wildcards(value) else value


def _seed_plan(refs: list[str], seeds: dict[str, int]) -> SeedPlan:
    """One job with these seeds (listed as `one_job_seeds` says); none: kept as they are."""
    if not refs:
        return SeedPlan(mode=SeedMode.keep)
    listed, per_input = one_job_seeds([seeds[ref] for ref in refs])
    return SeedPlan(mode=SeedMode.explicit, count=1, values=tuple(listed), per_input=per_input)
