"""Pictures moved to the system trash: the file goes there, the job and its attempts stay."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.batch import BatchSpec, SeedPlan, queue_batch
from core.errors import UnknownRecord
from core.ledger import Ledger
from core.ledger.marks import Mark
from core.pictures.pictures import batch_pictures, job_outputs
from core.pictures.trash import TrashError, trash_picture, trash_rejected
from tests.core.helpers import succeed
from tests.trash_home import use_trash


def _finished(ledger: Ledger, folder: Path, count: int) -> list[str]:
    batch, ids = queue_batch(ledger, "noise", BatchSpec(seeds=SeedPlan(count=count)))
    for job_id in ids:
        _succeed(ledger, job_id, [folder / batch.id / f"{job_id}_{n}.png" for n in range(2)])
    return ids


def _succeed(ledger: Ledger, job_id: str, pictures: list[Path]) -> None:
    """The job ran and wrote ``pictures``."""
    prompt_id = f"p-{job_id}"
    ledger.submit_attempt(job_id, prompt_id, "http://127.0.0.1:9", "hash")
    ledger.observe_running(prompt_id)
    for picture in pictures:
        picture.parent.mkdir(parents=True, exist_ok=True)
        picture.write_bytes(b"png " + job_id.encode())
    succeed(ledger, prompt_id, [str(p) for p in pictures])


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


def test_the_rejected_pictures_still_there_go_to_the_trash_past_one_that_cannot(
    ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trash = use_trash(monkeypatch, tmp_path / "data")
    batch, ids = queue_batch(ledger, "noise", BatchSpec(seeds=SeedPlan(count=5)))
    folder = tmp_path / "pictures"
    pictures = {job_id: [folder / f"{job_id}_{n}.png" for n in range(2)] for job_id in ids}
    pictures[ids[1]] = [folder / ("x" * 250 + ".png")]  # no room for the trash's ".trashinfo"
    for job_id in ids:
        _succeed(ledger, job_id, pictures[job_id])
    ledger.marks.set([ids[0], ids[1], ids[2]], Mark.reject)
    ledger.marks.set([ids[3]], Mark.star)  # ids[4] unmarked
    pictures[ids[2]][0].unlink()  # moved to the trash already, one at a time

    result = trash_rejected(ledger, batch.id)

    moved = [*pictures[ids[0]], pictures[ids[2]][1]]
    assert [(p.job_id, p.path) for p in result.moved] == [
        (ids[0], moved[0]),
        (ids[0], moved[1]),
        (ids[2], moved[2]),
    ]
    assert sorted(p.name for p in trash.iterdir()) == sorted(p.name for p in moved)
    assert not any(path.exists() for path in moved)
    (failed,) = result.not_moved
    assert (failed.picture.path, failed.why) == (pictures[ids[1]][0], "File name too long")
    assert pictures[ids[1]][0].exists()
    assert all(p.exists() for job_id in ids[3:] for p in pictures[job_id])
    assert [job.id for job in ledger.jobs(batch=batch.id)] == ids  # history: the jobs stay
    assert ledger.attempts(ids[0])[-1].outputs == [str(p) for p in pictures[ids[0]]]
    assert ledger.marks.in_batch(batch.id)[ids[0]] is Mark.reject
    assert trash_rejected(ledger, batch.id).moved == []  # nothing left but the one that fails
    with pytest.raises(UnknownRecord):
        trash_rejected(ledger, "batch_19990101_0001")
