"""Queue again with this seed from the jobs table's actions (its context menu and the Jobs menu)."""

from __future__ import annotations

from core.batch import BatchSpec, SeedPlan, queue_batch
from core.batch.prompt import prompt_for


def test_the_tables_queue_again_queues_that_jobs_seed_in_a_new_batch(window, ledger, preset_name):
    first, ids = queue_batch(
        ledger, preset_name, BatchSpec(seeds=SeedPlan(count=2, start=31), overrides={"3.cfg": 4.5})
    )
    window.model.refresh()
    window.select_job(ids[1])
    assert window.job_actions.queue_again in window.table.actions()
    assert window.job_actions.queue_again.isEnabled()
    window.job_actions.queue_again.trigger()
    (again,) = [b for b in ledger.batches() if b.id != first.id]
    (new,) = ledger.jobs(batch=again.id)
    assert new.params == {"3.seed": 32, "3.cfg": 4.5}
    workflow = ledger.workflow(first.workflow_hash)
    assert prompt_for(workflow, new.params, "x") == prompt_for(
        workflow, ledger.job(ids[1]).params, "x"
    )
    assert (
        window.banner.text() == f"Queued {new.id} (seed 32, the values of {ids[1]}) in {again.id}."
    )
    window.select_job(ids[0])
    window.table.selectRow(0)
    window.table.selectAll()
    assert not window.job_actions.queue_again.isEnabled()  # one job at a time
