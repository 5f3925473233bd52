"""Batch composition: seed-varied (and grid-swept) jobs from one preset, queued in the ledger,
and the exact prompt each attempt sends."""

from core.batch.compose import compose, expand_spec, parse_overrides
from core.batch.queueing import (
    composed_batch,
    queue_batch,
    queue_smaller,
    shrink_choices,
    stored_preset,
)
from core.batch.spec import BatchSpec, GridAxis, JobSpec, SeedMode, SeedPlan
from core.batch.workflow import (
    SHRINK_BATCH,
    SHRINK_KINDS,
    SHRINK_SIZE,
    build_workflow,
    default_shrink,
    retry_smaller,
    shrinkable,
    smaller_value,
    workflow_hash,
)
from core.ledger.owners import default_requester

__all__ = [
    "SHRINK_BATCH",
    "SHRINK_KINDS",
    "SHRINK_SIZE",
    "BatchSpec",
    "GridAxis",
    "JobSpec",
    "SeedMode",
    "SeedPlan",
    "build_workflow",
    "compose",
    "composed_batch",
    "default_requester",
    "default_shrink",
    "expand_spec",
    "parse_overrides",
    "queue_batch",
    "queue_smaller",
    "retry_smaller",
    "shrink_choices",
    "shrinkable",
    "smaller_value",
    "stored_preset",
    "workflow_hash",
]
