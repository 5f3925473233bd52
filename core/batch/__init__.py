"""Batch composition: seed-varied (and grid-swept) jobs from one preset."""

from core.batch.compose import compose, parse_overrides
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
    "parse_overrides",
    "retry_smaller",
    "workflow_hash",
]
