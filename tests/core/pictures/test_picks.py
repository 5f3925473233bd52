"""Tests for core.pictures.picks: a batch's starred pictures found and copied, never over a file."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from core.job_state import AttemptResult, Reason
from core.ledger import Ledger
from core.ledger.marks import Mark
from core.pictures.picks import export_marked, marked_pictures
from tests.core.helpers import succeed, succeed_late
from tests.core.marked_jobs import jobs


def succeed_job(ledger: Ledger, job_id: str, picture: Path) -> None:
    prompt_id = f"prompt-{job_id}"
    ledger.submit_attempt(job_id, prompt_id, "http://x", "wf")
    ledger.observe_queued(prompt_id, 1)
    ledger.observe_running(prompt_id)
    succeed(ledger, prompt_id, [str(picture)])


def test_the_starred_pictures_are_copied_without_replacing_anything(tmp_path: Path) -> None:
    with Ledger(tmp_path / "home") as ledger:
        batch, ids = jobs(ledger, 3)
        pictures = []
        for n, job_id in enumerate(ids):
            picture = tmp_path / f"{job_id}_1.png"
            Image.new("RGB", (8, 8), (n * 80, 0, 0)).save(picture)
            pictures.append(picture)
            succeed_job(ledger, job_id, picture)
        ledger.marks.set([ids[0], ids[2]], Mark.star)
        ledger.marks.set([ids[1]], Mark.reject)
        assert marked_pictures(ledger, batch) == [pictures[0], pictures[2]]
        picks = tmp_path / "picks"
        picks.mkdir()
        (picks / pictures[0].name).write_bytes(b"the artist's own file")
        copies = export_marked(ledger, batch, picks)
        again = export_marked(ledger, batch, picks)
    assert [c.name for c in copies] == [f"{ids[0]}_1-2.png", f"{ids[2]}_1.png"]
    assert (picks / pictures[0].name).read_bytes() == b"the artist's own file"
    assert [c.read_bytes() for c in copies] == [pictures[0].read_bytes(), pictures[2].read_bytes()]
    assert again == copies, "exporting again copies nothing twice"


def test_a_starred_job_that_succeeded_late_gives_its_picture(tmp_path: Path) -> None:
    """A given-up attempt that succeeded after all holds the job's picture, not its current
    (withdrawn) attempt."""
    with Ledger(tmp_path / "home") as ledger:
        batch, (job_id,) = jobs(ledger, 1)
        picture = tmp_path / "late.png"
        Image.new("RGB", (8, 8)).save(picture)
        ledger.submit_attempt(job_id, "old", "http://x", "wf")
        ledger.observe_retryable("old", AttemptResult.lost, Reason.timeout)
        ledger.submit_attempt(job_id, "new", "http://x", "wf")
        assert succeed_late(ledger, "old", [str(picture)])
        ledger.marks.set([job_id], Mark.star)
        assert marked_pictures(ledger, batch) == [picture]
