"""The latest preview of each running job, as a file the window can read.

ComfyUI sends previews over the WebSocket while a sampler runs (with ``--preview-method``).
The controller runs in its own process, so it keeps the newest one of each job as a file beside
the ledger (``previews/<job>.jpg`` or ``.png``, replaced whole, at most every
``MIN_INTERVAL_S``) and counts them in its status; a window reloads the file when the count
moves. A job's file goes once it no longer runs.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from core.comfy import PreviewImage

log = logging.getLogger(__name__)
FOLDER = "previews"
MIN_INTERVAL_S = 0.25  # a sampler step can take 30 ms: four previews a second are plenty
MAX_BYTES = 4 * 1024 * 1024
_SUFFIX = {"image/jpeg": ".jpg", "image/png": ".png"}


def preview_file(ledger_folder: Path, job_id: str) -> Path | None:
    """The latest preview of ``job_id``, if there is one."""
    for suffix in _SUFFIX.values():
        path = ledger_folder / FOLDER / f"{job_id}{suffix}"
        if path.exists():
            return path
    return None


class PreviewFiles:
    """Writes each running job's newest preview; ``counts`` says how many were written."""

    def __init__(self, ledger_folder: Path) -> None:
        self.folder = ledger_folder / FOLDER
        self.counts: dict[str, int] = {}
        self._written_at: dict[str, float] = {}

    def save(self, job_id: str, preview: PreviewImage) -> bool:
        """Keep ``preview`` as ``job_id``'s (unless the last one is too recent, or it is too
        big); whether it was written."""
        now = time.monotonic()
        if now - self._written_at.get(job_id, -MIN_INTERVAL_S) < MIN_INTERVAL_S:
            return False
        if len(preview.data) > MAX_BYTES:
            return False
        suffix = _SUFFIX.get(preview.mime, ".png")
        try:
            self.folder.mkdir(mode=0o700, exist_ok=True)
            part = self.folder / f"{job_id}{suffix}.part"
            part.write_bytes(preview.data)
            os.replace(part, self.folder / f"{job_id}{suffix}")
        except OSError as exc:  # a full disk costs the preview, never the job
            log.debug("preview of %s not written: %s", job_id, exc)
            return False
        self._written_at[job_id] = now
        self.counts[job_id] = self.counts.get(job_id, 0) + 1
        return True

    def keep_only(self, running: set[str]) -> None:
        """Forget (and delete) the previews of jobs that no longer run."""
        for job_id in [job for job in self.counts if job not in running]:
            del self.counts[job_id]
            self._written_at.pop(job_id, None)
            for suffix in _SUFFIX.values():
                with contextlib.suppress(OSError):
                    (self.folder / f"{job_id}{suffix}").unlink()
