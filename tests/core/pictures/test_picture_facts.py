"""Tests for core.pictures.picture_facts: what the viewer says of one job's picture, read from a
real ledger."""

from __future__ import annotations

from core.batch import BatchSpec, GridAxis, SeedPlan, queue_batch
from core.job_state import JobState
from core.ledger import Ledger, PresetContent
from core.ledger.marks import Mark
from core.pictures.picture_facts import batch_values, picture_facts
from core.presets import workflow_hash
from tests.core.helpers import NOISE_WORKFLOW


def test_a_job_says_its_seeds_what_its_batch_varies_its_state_and_its_mark(ledger: Ledger) -> None:
    ledger.presets.add("noise", PresetContent(workflow_hash(NOISE_WORKFLOW), NOISE_WORKFLOW))
    grid = (GridAxis("1.width", (32, 48)), GridAxis("1.color", ("#FF0000", "#00FF00")))
    spec = BatchSpec(seeds=SeedPlan(count=1, start=7), grid=grid)
    batch, ids = queue_batch(ledger, "noise", spec)
    values = batch_values(ledger, batch.id)
    facts = picture_facts(ledger, ids[-1], values)
    assert (facts.job_id, facts.batch_id, facts.state) == (ids[-1], batch.id, JobState.pending)
    assert facts.seeds == {"2.seed": 7}
    assert facts.varied == {"1.color": 0x00FF00, "1.width": 48}
    assert (facts.seconds, facts.mark) == (None, None), "not run, not marked"
    assert facts.colours == frozenset({"1.color"})
    ledger.marks.set([ids[-1]], Mark.star)
    assert picture_facts(ledger, ids[-1], values).mark is Mark.star
