"""Queue again with this seed: one job, in a batch of its own, sending the same workflow."""

from __future__ import annotations

import pytest

from core.batch import BatchSpec, GridAxis, SeedPlan, queue_batch
from core.batch.again import again
from core.batch.prompt import prompt_for
from core.controller.backpressure import Limits
from core.controller.commands import LedgerCommands
from core.errors import PresetError, QueueBusy
from core.ledger import Ledger, PresetContent
from core.presets import workflow_hash
from tests.core.helpers import NOISE_WORKFLOW

TWO_SEEDS = {
    **NOISE_WORKFLOW,
    "4": {"class_type": "ImageAddNoise", "inputs": {"image": ["2", 0], "seed": 7, "strength": 0.1}},
}


def _prompt(ledger: Ledger, job_id: str) -> dict:
    job = ledger.job(job_id)
    batch = ledger.batch(job.batch)
    return prompt_for(ledger.workflow(batch.workflow_hash), job.params, "same-folder")


def test_queue_again_sends_exactly_that_seed_and_the_jobs_other_values(ledger: Ledger) -> None:
    spec = BatchSpec(
        seeds=SeedPlan(count=3, start=4000),
        overrides={"1.width": 96},
        grid=(GridAxis("2.strength", (0.25, 0.75)),),
    )
    first, ids = queue_batch(ledger, "noise", spec)
    original = ids[3]  # seed 4001, strength 0.75
    request, batch, new = LedgerCommands(ledger).queue_again(original)
    assert batch.id != first.id
    assert ledger.jobs(batch=batch.id)[0].id == new
    assert len(ledger.jobs(batch=batch.id)) == 1
    assert request.seeds == {"2.seed": 4001}
    assert ledger.job(new).params == {"1.width": 96, "2.strength": 0.75, "2.seed": 4001}
    assert _prompt(ledger, new) == _prompt(ledger, original)
    assert _prompt(ledger, new)["2"]["inputs"]["seed"] == 4001
    assert request.describe(new, batch.id) == (
        f"Queued {new} (seed 4001, the values of {original}) in {batch.id}."
    )


def test_each_seed_input_keeps_its_own_seed(ledger: Ledger) -> None:
    ledger.presets.add("two", PresetContent(workflow_hash(TWO_SEEDS), TWO_SEEDS))
    spec = BatchSpec(seeds=SeedPlan(count=2, start=10, per_input=True))
    _, ids = queue_batch(ledger, "two", spec)
    _, _, new = LedgerCommands(ledger).queue_again(ids[1])
    assert _prompt(ledger, new) == _prompt(ledger, ids[1])
    assert ledger.job(new).params == {"2.seed": 12, "4.seed": 13}


def test_queue_again_is_refused_whole_past_the_backlog(ledger: Ledger) -> None:
    _, ids = queue_batch(ledger, "noise", BatchSpec(seeds=SeedPlan(count=2)))
    commands = LedgerCommands(ledger, limits=Limits(max_pending_per_requester=2))
    with pytest.raises(QueueBusy):
        commands.queue_again(ids[0])
    assert len(ledger.batches()) == 1


def test_a_job_whose_preset_is_gone_says_so(ledger: Ledger) -> None:
    _, ids = queue_batch(ledger, "noise", BatchSpec())
    ledger.presets.remove("noise")
    with pytest.raises(PresetError, match=f"job {ids[0]}: no stored preset has its workflow"):
        again(ledger, ids[0])


TEXTS = {
    **NOISE_WORKFLOW,
    "4": {
        "class_type": "PrimitiveStringMultiline",
        "inputs": {"value": "a {red|green|blue|amber} fox, \\{literal\\}"},
    },
}


def test_a_wildcard_batch_queued_again_sends_the_same_texts(ledger: Ledger) -> None:
    ledger.presets.add("texts", PresetContent(workflow_hash(TEXTS), TEXTS))
    spec = BatchSpec(
        seeds=SeedPlan(count=6),
        overrides={"3.filename_prefix": "{x|y|z}"},
        grid=(GridAxis("2.strength", (0.25, 0.75)),),
    )
    _, ids = queue_batch(ledger, "texts", spec)
    texts = {ledger.job(job_id).params["4.value"] for job_id in ids}
    assert len(texts) > 1
    assert all(text.endswith(", {literal}") for text in texts)
    for job_id in ids:
        _, _, new = LedgerCommands(ledger).queue_again(job_id)
        assert ledger.job(new).params == ledger.job(job_id).params
        assert _prompt(ledger, new) == _prompt(ledger, job_id)
