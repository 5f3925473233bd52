"""The picture search's index is kept in step by the ledger's own writes: a success adds its
pictures, marks and batch names change its rows (SQL triggers, whoever writes them), a trashed
picture leaves it; searches come newest first, a requester's own alone when asked."""

from __future__ import annotations

import sqlite3
import time
from typing import TYPE_CHECKING

from core.ledger.marks import Mark
from core.ledger.picture_index import DateSpan, PictureQuery
from core.paths import ledger_path
from tests.core.finished_pictures import add_preset, finished
from tests.core.helpers import succeed, succeed_late

if TYPE_CHECKING:
    from pathlib import Path

    from core.ledger import Ledger

EVERY = PictureQuery()


def jobs_found(ledger: Ledger, query: PictureQuery, **kwargs: object) -> list[str]:
    return [hit.job_id for hit in ledger.picture_index.search(query, **kwargs)]  # type: ignore[arg-type]


def words(column: str, text: str) -> PictureQuery:
    return PictureQuery(match=f'{column} : "{text}"')


def test_a_success_indexes_its_pictures_newest_first(ledger: Ledger, tmp_path: Path) -> None:
    add_preset(ledger)
    batch, ids = finished(ledger, tmp_path, [{"3.seed": n} for n in range(3)], pictures=2)
    hits = ledger.picture_index.search(EVERY)
    assert [(hit.job_id, hit.index) for hit in hits] == [
        (job, n) for job in reversed(ids) for n in (0, 1)
    ]
    assert hits[0].path == tmp_path / f"{ids[2]}_0.png"
    assert {hit.batch_id for hit in hits} == {batch}
    assert ledger.picture_index.count() == 3


def test_a_page_is_limit_pictures_from_the_offset(ledger: Ledger, tmp_path: Path) -> None:
    add_preset(ledger)
    _, ids = finished(ledger, tmp_path, [{"3.seed": n} for n in range(5)])
    page = jobs_found(ledger, EVERY, limit=2, offset=1)
    assert page == [ids[3], ids[2]]
    assert jobs_found(ledger, words("prompt", "fox"), limit=2, offset=4) == [ids[0]]


def test_jobs_not_succeeded_or_without_pictures_are_not_indexed(
    ledger: Ledger, tmp_path: Path
) -> None:
    add_preset(ledger)
    _, ids = ledger.create_batch("Portrait", [_job(1), _job(2)], requester="artist")
    ledger.submit_attempt(ids[0], "p0", "http://gpu-1:8188", "wf")
    ledger.observe_running("p0")
    assert succeed(ledger, "p0", [])  # succeeded, but its pictures were all lost
    assert jobs_found(ledger, EVERY) == []


def test_a_late_success_is_indexed_with_its_own_pictures(ledger: Ledger, tmp_path: Path) -> None:
    from core.job_state import AttemptResult, Reason

    add_preset(ledger)
    _, (job,) = ledger.create_batch("Portrait", [_job(1)], requester="artist")
    ledger.submit_attempt(job, "old", "http://gpu-1:8188", "wf")
    ledger.observe_retryable("old", AttemptResult.lost, Reason.timeout)
    ledger.submit_attempt(job, "new", "http://gpu-2:8188", "wf")
    picture = tmp_path / "late.png"
    picture.write_bytes(b"png")
    assert succeed_late(ledger, "old", [str(picture)])
    (hit,) = ledger.picture_index.search(words("server", "gpu-1"))
    assert (hit.job_id, hit.path) == (job, picture)


def test_marks_follow_whoever_sets_them(ledger: Ledger, tmp_path: Path) -> None:
    add_preset(ledger)
    _, ids = finished(ledger, tmp_path, [{"3.seed": n} for n in range(3)])
    ledger.marks.set([ids[0], ids[1]], Mark.star)
    ledger.marks.set([ids[1]], Mark.reject)
    assert jobs_found(ledger, words("mark", "starred")) == [ids[0]]
    assert jobs_found(ledger, words("mark", "rejected")) == [ids[1]]
    ledger.marks.set([ids[0]], None)
    assert jobs_found(ledger, words("mark", "starred")) == []
    # Another program writing the mark table directly is followed too (the triggers).
    conn = sqlite3.connect(ledger_path(ledger.folder))
    conn.execute("INSERT INTO mark (job_id, mark, at) VALUES (?, 'star', 0)", (ids[2],))
    conn.commit()
    conn.close()
    assert jobs_found(ledger, words("mark", "starred")) == [ids[2]]


def test_a_renamed_batch_is_found_by_its_new_name_only(ledger: Ledger, tmp_path: Path) -> None:
    add_preset(ledger)
    batch, ids = finished(ledger, tmp_path, [{"3.seed": 1}], name="Morning owls")
    assert jobs_found(ledger, words("batch", "owls")) == ids
    ledger.name_batch(batch, "Evening foxes")
    assert jobs_found(ledger, words("batch", "owls")) == []
    assert jobs_found(ledger, words("batch", "evening")) == ids
    assert jobs_found(ledger, words("batch", batch)) == ids  # its id, named or not
    ledger.name_batch(batch, None)
    assert jobs_found(ledger, words("batch", "evening")) == []


def test_a_trashed_picture_leaves_the_index_and_its_job_with_the_last(
    ledger: Ledger, tmp_path: Path
) -> None:
    add_preset(ledger)
    _, (job,) = finished(ledger, tmp_path, [{"3.seed": 1}], pictures=2)
    ledger.picture_index.forget(job, tmp_path / f"{job}_0.png")
    assert [hit.index for hit in ledger.picture_index.search(EVERY)] == [1]
    ledger.picture_index.forget(job, tmp_path / f"{job}_1.png")
    assert ledger.picture_index.search(EVERY) == []
    assert ledger.picture_index.count() == 0
    assert ledger.handle.database.execute_sql("SELECT COUNT(*) FROM picture_text").fetchone() == (
        0,
    )


def test_a_deleted_job_leaves_the_index(ledger: Ledger, tmp_path: Path) -> None:
    """Batchline deletes no job today; were one deleted (by hand), the index follows."""
    add_preset(ledger)
    _, ids = finished(ledger, tmp_path, [{"3.seed": 1}, {"3.seed": 2}])
    with ledger.handle.tx():
        ledger.handle.database.execute_sql("DELETE FROM job WHERE id = ?", (ids[0],))
    assert jobs_found(ledger, EVERY) == [ids[1]]
    assert ledger.handle.database.execute_sql("SELECT COUNT(*) FROM picture_file").fetchone() == (
        1,
    )


def test_a_requester_finds_its_own_pictures_only(ledger: Ledger, tmp_path: Path) -> None:
    add_preset(ledger)
    _, mine = finished(ledger, tmp_path, [{"3.seed": 1}], requester="alice")
    _, theirs = finished(ledger, tmp_path, [{"3.seed": 2}], requester="bob")
    _, similar = finished(ledger, tmp_path, [{"3.seed": 3}], requester="alice bob")
    assert jobs_found(ledger, EVERY, requester="alice") == mine
    assert jobs_found(ledger, words("prompt", "fox"), requester="bob") == theirs
    assert jobs_found(ledger, PictureQuery(exclude='seed : "1"'), requester="alice bob") == similar


def test_spans_of_dates_and_exclusions(ledger: Ledger, tmp_path: Path) -> None:
    add_preset(ledger)
    _, ids = finished(ledger, tmp_path, [{"3.seed": 1}, {"3.seed": 2}])
    now = time.time()
    assert jobs_found(ledger, PictureQuery(spans=(DateSpan(now - 60, now + 60),))) == ids[::-1]
    assert jobs_found(ledger, PictureQuery(spans=(DateSpan(None, now - 60),))) == []
    outside = PictureQuery(spans=(DateSpan(now - 60, None, inside=False),))
    assert jobs_found(ledger, outside) == []
    fox_not_two = PictureQuery(match='prompt : "fox"', exclude='seed : "2"')
    assert jobs_found(ledger, fox_not_two) == [ids[0]]


def _job(seed: int) -> object:
    from core.ledger import NewJob

    return NewJob({"3.seed": seed})


def test_a_requester_named_without_letters_finds_its_own(ledger: Ledger, tmp_path: Path) -> None:
    add_preset(ledger)
    _, mine = finished(ledger, tmp_path, [{"3.seed": 1}], requester="🦊")
    finished(ledger, tmp_path, [{"3.seed": 2}], requester="bob")
    assert jobs_found(ledger, words("prompt", "fox"), requester="🦊") == mine
