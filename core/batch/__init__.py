"""Batch composition: seed-varied (and grid-swept) jobs from one preset, queued in the ledger,
and the exact prompt each attempt sends."""

from core.batch.compose import compose, parse_overrides
from core.batch.queueing import default_requester, queue_batch, queue_smaller, stored_preset
from core.batch.spec import BatchSpec, GridAxis, JobSpec, SeedMode, SeedPlan
from core.batch.workflow import build_workflow, retry_smaller, workflow_hash

__all__ = [
    "BatchSpec",
    "GridAxis",
    "JobSpec",
    "SeedMode",
    "SeedPlan",
    "build_workflow",
    "compose",
    "default_requester",
    "parse_overrides",
    "queue_batch",
    "queue_smaller",
    "retry_smaller",
    "stored_preset",
    "workflow_hash",
]
