"""A batch's pictures in job order: each job's outputs one after another, jobs without any
skipped."""

from __future__ import annotations

from pathlib import Path

from core.batch import BatchSpec, SeedPlan, queue_batch
from core.ledger import Ledger
from core.pictures.pictures import Picture, batch_pictures, job_outputs
from tests.core.helpers import succeed


def _finish(ledger: Ledger, job_id: str, paths: list[Path], n: int = 1) -> None:
    prompt_id = f"p-{job_id}-{n}"
    ledger.submit_attempt(job_id, prompt_id, "http://127.0.0.1:9", "hash")
    ledger.observe_running(prompt_id)
    for path in paths:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"png")
    succeed(ledger, prompt_id, [str(p) for p in paths])


def test_each_jobs_pictures_in_job_order_and_jobs_without_any_skipped(
    ledger: Ledger, tmp_path: Path
) -> None:
    batch, ids = queue_batch(ledger, "noise", BatchSpec(seeds=SeedPlan(count=4, start=10)))
    out = tmp_path / "out" / batch.id
    _finish(ledger, ids[2], [out / f"{ids[2]}_0.png"])
    _finish(ledger, ids[0], [out / f"{ids[0]}_0.png", out / f"{ids[0]}_1.png"])
    _finish(ledger, ids[3], [out / f"{ids[3]}_0.png"])
    (out / f"{ids[3]}_0.png").unlink()  # gone (to the trash): skipped, its job kept
    # ids[1] never ran: no pictures
    assert batch_pictures(ledger, batch.id) == [
        Picture(ids[0], out / f"{ids[0]}_0.png"),
        Picture(ids[0], out / f"{ids[0]}_1.png"),
        Picture(ids[2], out / f"{ids[2]}_0.png"),
    ]
    assert job_outputs(ledger, ids[3]) == []


def test_relative_outputs_are_read_under_the_output_folder(ledger: Ledger, tmp_path: Path) -> None:
    batch, (job,) = queue_batch(ledger, "noise", BatchSpec())
    (tmp_path / batch.id).mkdir()
    (tmp_path / batch.id / "a.png").write_bytes(b"png")
    prompt_id = "p"
    ledger.submit_attempt(job, prompt_id, "http://127.0.0.1:9", "hash")
    ledger.observe_running(prompt_id)
    succeed(ledger, prompt_id, [f"{batch.id}/a.png"])
    assert batch_pictures(ledger, batch.id, tmp_path) == [
        Picture(job, tmp_path / batch.id / "a.png")
    ]
    assert job_outputs(ledger, job, tmp_path) == [str(tmp_path / batch.id / "a.png")]
