"""Pictures moved to the system trash: the file goes there, the job and its attempts stay."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.batch import BatchSpec, SeedPlan, queue_batch
from core.batch.pictures import batch_pictures, job_outputs
from core.batch.trash import TrashError, trash_picture
from core.ledger import Ledger
from core.ledger.marks import Mark
from tests.trash_home import use_trash


def _finished(ledger: Ledger, folder: Path, count: int) -> list[str]:
    batch, ids = queue_batch(ledger, "noise", BatchSpec(seeds=SeedPlan(count=count)))
    for job_id in ids:
        prompt_id = f"p-{job_id}"
        ledger.submit_attempt(job_id, prompt_id, "http://127.0.0.1:9", "hash")
        ledger.observe_running(prompt_id)
        pictures = [folder / batch.id / f"{job_id}_{n}.png" for n in range(2)]
        for picture in pictures:
            picture.parent.mkdir(parents=True, exist_ok=True)
            picture.write_bytes(b"png " + job_id.encode())
        ledger.observe_succeeded(prompt_id, [str(p) for p in pictures])
    return ids


def test_a_trashed_picture_is_in_the_trash_and_its_job_is_kept(
    ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trash = use_trash(monkeypatch, tmp_path / "data")
    ids = _finished(ledger, tmp_path / "pictures", 2)
    first, second = (Path(p) for p in job_outputs(ledger, ids[0]))
    trash_picture(ledger, ids[0], first)
    assert not first.exists()
    assert (trash / first.name).read_bytes() == f"png {ids[0]}".encode()
    assert job_outputs(ledger, ids[0]) == [str(second)]
    trash_picture(ledger, ids[0], second)
    assert job_outputs(ledger, ids[0]) == []
    assert len(job_outputs(ledger, ids[1])) == 2
    assert [p.job_id for p in batch_pictures(ledger, ledger.job(ids[0]).batch)] == [ids[1]] * 2
    assert ledger.job(ids[0]).state == "succeeded"
    assert ledger.attempts(ids[0])[-1].outputs == [str(first), str(second)]


def test_a_starred_picture_is_refused(
    ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_trash(monkeypatch, tmp_path / "data")
    (job_id,) = _finished(ledger, tmp_path / "pictures", 1)
    ledger.marks.set([job_id], Mark.star)
    picture = Path(job_outputs(ledger, job_id)[0])
    with pytest.raises(TrashError, match=f"^{picture.name} is starred: take its star off"):
        trash_picture(ledger, job_id, picture)
    assert picture.exists()


def test_no_trash_to_go_to_is_one_line_naming_the_file(
    ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    use_trash(monkeypatch, blocker / "data")  # the trash would lie under a file
    (job_id,) = _finished(ledger, tmp_path / "pictures", 1)
    picture = Path(job_outputs(ledger, job_id)[0])
    with pytest.raises(TrashError) as caught:
        trash_picture(ledger, job_id, picture)
    assert str(caught.value) == f"cannot move {picture} to the trash: Not a directory"
    assert picture.exists()
    picture.unlink()
    with pytest.raises(TrashError, match=f"^{picture} is no longer there$"):
        trash_picture(ledger, job_id, picture)
