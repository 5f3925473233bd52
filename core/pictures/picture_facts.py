"""What the viewer says beside a picture: its job's seeds, the values its batch varies, its
prompts, how long it took, its state and mark."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from core.batch.batch_title import batch_title
from core.batch.recall import literal_values
from core.batch.varied import BatchValues, is_seed
from core.batch.workflow import build_workflow
from core.catalogue import Catalogue
from core.presets.input_names import names_of
from core.presets.parameters import list_parameters

if TYPE_CHECKING:
    from core.job_state import JobState
    from core.ledger import Ledger
    from core.ledger.marks import Mark


@dataclass(frozen=True)
class PictureFacts:
    """One job's facts (``NODE_ID.INPUT`` keys); ``seconds`` is None until it has run."""

    job_id: str
    batch_id: str
    batch_name: str  # its title: the artist's name, else preset and what varies
    state: JobState
    reason: str | None
    seeds: dict[str, Any]
    varied: dict[str, Any]
    prompts: list[tuple[str, str]]  # (name, text): "Positive prompt · text", "a fox in the snow"
    seconds: float | None
    mark: Mark | None
    colours: frozenset[str] = frozenset()  # the inputs shown as colours (#RRGGBB)
    names: dict[str, str] = field(default_factory=dict)  # seeds' and varied's, as the composer

    def name(self, key: str) -> str:
        """Input ``key`` as every door names it: "KSampler (Advanced) - BASE · noise_seed"."""
        return self.names.get(key, key)


def batch_values(ledger: Ledger, batch_id: str) -> BatchValues:
    """What the batch's jobs vary and share (read once per batch)."""
    return BatchValues.of(job.params for job in ledger.jobs(batch=batch_id))


def picture_facts(
    ledger: Ledger, job_id: str, values: BatchValues, catalogue: Catalogue | None = None
) -> PictureFacts:
    """The facts of job ``job_id``, whose batch's values are ``values``.

    Raises:
        UnknownRecord: no such job.
    """
    job = ledger.job(job_id)
    batch = ledger.batch(job.batch)
    api = build_workflow(ledger.workflow(batch.workflow_hash), job.params)
    catalogue = catalogue or Catalogue.bundled()
    parameters = list_parameters(api, catalogue)
    prompts = [(p.label, str(p.value)) for p in parameters if p.multiline and p.value]
    seeds = {key: value for key, value in literal_values(api).items() if is_seed(key)}
    varied = {
        key: job.params[key]
        for key in sorted(values.varied)
        if key in job.params and not is_seed(key)
    }
    seconds = (
        job.finished_at - job.started_at
        if job.started_at is not None and job.finished_at is not None
        else None
    )
    return PictureFacts(
        job_id=job.id,
        batch_id=job.batch,
        batch_name=batch_title(ledger, batch),
        state=job.state,
        reason=job.reason,
        seeds=seeds,
        varied=varied,
        prompts=prompts,
        seconds=seconds,
        mark=ledger.marks.of([job_id]).get(job_id),
        colours=frozenset(str(p.ref) for p in parameters if p.colour),
        names=names_of([*seeds, *varied], api, catalogue),
    )
