"""The one order of a batch's jobs, the sheet's and the viewer's: a plain batch in the order its
seeds were given (the order its jobs are sent in), a retry after the job it retried; a grid
page by page, row by row."""

from __future__ import annotations

from pathlib import Path

from core.batch import BatchSpec, SeedMode, SeedPlan, queue_batch, queue_smaller
from core.job_state import Reason
from core.ledger import Ledger, PresetContent
from core.pictures.sheet_order import batch_order, sheet_pictures
from core.presets import workflow_hash
from tests.core.helpers import NOISE_WORKFLOW, succeed
from tests.core.pictures.test_grid_sheet import grid_batch


def _fail_oom(ledger: Ledger, job_id: str) -> None:
    ledger.submit_attempt(job_id, f"p-{job_id}", "http://x", "wf")
    ledger.observe_running(f"p-{job_id}")
    ledger.observe_failed(f"p-{job_id}", Reason.oom)


def test_a_plain_batch_is_in_the_order_of_its_seeds_a_retry_after_its_original(
    ledger: Ledger, tmp_path: Path
) -> None:
    ledger.presets.add("noise", PresetContent(workflow_hash(NOISE_WORKFLOW), NOISE_WORKFLOW))
    seeds = SeedPlan(SeedMode.explicit, values=(30, 10, 20))
    batch, ids = queue_batch(ledger, "noise", BatchSpec(seeds, overrides={"1.width": 128}))
    assert batch_order(ledger, batch.id) == ids, "as given, not sorted: the order they are sent"
    _fail_oom(ledger, ids[0])
    retry = queue_smaller(ledger, ids[0], shrink=["size"])
    assert batch_order(ledger, batch.id) == [ids[0], retry, ids[1], ids[2]]
    picture = tmp_path / "retry.png"
    picture.write_bytes(b"png")
    ledger.submit_attempt(retry, "p-retry", "http://x", "wf")
    ledger.observe_running("p-retry")
    succeed(ledger, "p-retry", [str(picture)])
    assert [p.job_id for p in sheet_pictures(ledger, batch.id)] == [retry]


def test_a_grid_is_read_page_by_page_row_by_row_a_retry_in_its_originals_cell(
    ledger: Ledger, tmp_path: Path
) -> None:
    batch, ids = grid_batch(ledger, tmp_path)  # columns strength 0.1-0.9, rows width 64, 128

    def place(job_id: str) -> tuple[int, float]:
        params = ledger.job(job_id).params
        return params["1.width"], params["2.strength"]

    order = batch_order(ledger, batch)
    assert [place(job) for job in order] == [
        (64, 0.1),
        (64, 0.5),
        (64, 0.9),
        (128, 0.1),
        (128, 0.5),
        (128, 0.9),
    ]
    assert order == ids, "the jobs are queued in the order the sheet reads them"
    failed = order[-1]
    retry = queue_smaller(ledger, failed, shrink=["size"])
    assert batch_order(ledger, batch) == [*order[:-1], retry, failed], "the original on no cell"
    assert [p.job_id for p in sheet_pictures(ledger, batch)] == order[:-1]
