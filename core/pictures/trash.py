"""A picture moved to the system trash: the file goes, the job and its attempts stay (history).

A job whose recorded pictures are all gone (`pictures.recorded_outputs`, none a file) is shown
as deleted; the job is not written, but the picture search's index forgets the picture. A
starred picture is refused: the star says "keep this", so it has to be taken off first (the
viewer's key 1), and a key pressed by mistake never loses a pick. A batch's rejected pictures
can go all at once (`trash_rejected`), each one checked the same way at the moment it moves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from send2trash import send2trash

from core.errors import BatchlineError
from core.ledger.marks import Mark
from core.pictures.picks import marked

if TYPE_CHECKING:
    from pathlib import Path

    from core.ledger import Ledger
    from core.pictures.pictures import Picture


class TrashError(BatchlineError):
    """The picture could not be moved to the trash (no trash here, no permission, gone, or
    refused because it is starred); one line naming the file, and ``why`` the reason alone."""

    def __init__(self, message: str, why: str) -> None:
        super().__init__(message)
        self.why = why


class NotMoved(NamedTuple):
    """A picture left where it was, and why (one line)."""

    picture: Picture
    why: str


@dataclass(frozen=True)
class Trashed:
    """What moving a batch's rejected pictures to the trash did."""

    moved: list[Picture] = field(default_factory=list)
    not_moved: list[NotMoved] = field(default_factory=list)


def move_to_trash(path: Path) -> None:
    """Move ``path`` to the system's trash (the Freedesktop trash on Linux).

    Raises:
        TrashError: the file is gone, or this system offers no trash the file can go to.
    """
    if not path.is_file():
        raise TrashError(f"{path} is no longer there", "it is no longer there")
    try:
        send2trash(path)
    except OSError as exc:
        why = exc.strerror or str(exc) or type(exc).__name__
        raise TrashError(f"cannot move {path} to the trash: {why}", why) from None


def check_trashable(ledger: Ledger, job_id: str, path: Path) -> None:
    """Raise unless job ``job_id``'s picture ``path`` may go to the trash (asked before the
    artist is asked to confirm).

    Raises:
        TrashError: the job is starred.
        UnknownRecord: no such job.
    """
    ledger.job(job_id)
    if ledger.marks.of([job_id]).get(job_id) is Mark.star:
        raise TrashError(
            f"{path.name} is starred: take its star off first (key 1) to move it to the trash",
            "it is starred",
        )


def trash_picture(ledger: Ledger, job_id: str, path: Path) -> None:
    """Move one of job ``job_id``'s pictures to the trash, unless the job is starred.

    Raises:
        TrashError: the job is starred, or the file cannot go to the trash.
        UnknownRecord: no such job.
    """
    check_trashable(ledger, job_id, path)
    move_to_trash(path)
    ledger.picture_index.forget(job_id, path)  # the search finds it no more


def trash_rejected(ledger: Ledger, batch_id: str, output_dir: Path | None = None) -> Trashed:
    """Move every rejected picture of the batch that is still there to the trash, going on past
    one that cannot go; a job starred meanwhile keeps its pictures. The jobs stay (history).

    Raises:
        UnknownRecord: no such batch.
    """
    ledger.batch(batch_id)
    result = Trashed()
    for picture in marked(ledger, batch_id, Mark.reject, output_dir):
        try:
            trash_picture(ledger, picture.job_id, picture.path)
        except TrashError as exc:
            result.not_moved.append(NotMoved(picture, exc.why))
        else:
            result.moved.append(picture)
    return result
