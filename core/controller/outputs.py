"""A finished prompt's pictures: the references a success records (``output_refs``), then
their download into the output folder, never outside it (``fetch_outputs``)."""

from __future__ import annotations

import contextlib
import errno
import logging
import re
import stat
from dataclasses import asdict, dataclass, fields
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from core.batch.varied import is_seed
from core.comfy import ImageRef
from core.errors import (
    BatchFolderRefused,
    ComfyError,
    ComfyNotFound,
    OutputFolderBlocked,
    OutputFolderFull,
    TransientComfyError,
)
from core.inputs import picture_params
from core.ledger.settings import MAX_PICTURES_PER_JOB
from core.presets.png_parameters import add_own_parameters

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

    from core.comfy import ComfyClient, HistoryEntry

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".webp", ".gif"})
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")
# A disk or a quota that is full: the pictures wait on the server until there is room.
NO_ROOM = frozenset({errno.ENOSPC, errno.EDQUOT})
UNWRITABLE = frozenset({errno.ENOTDIR, errno.EACCES, errno.EPERM, errno.EROFS, errno.EISDIR})


def output_path(output_dir: Path, batch_id: str, name: str, index: int, server_name: str) -> Path:
    """``<output dir>/<batch>/<name>_<n>.<ext>``, ``name`` a job's (``output_name``); the
    server's file name only lends its suffix.

    This is the wanted name: when anything holds it (another job's picture of the same
    source and seed, another ledger's, a link, a folder), the download takes
    ``<name>_<n>-2.<ext>``, ``-3`` ... instead. The ids become one plain name each
    (``_safe``), so the path lies in the output folder whatever they say.
    """
    suffix = PurePosixPath(server_name).suffix.lower()
    suffix = suffix if suffix in IMAGE_SUFFIXES else ".png"
    return batch_folder(output_dir, batch_id) / f"{_safe(name)}_{index}{suffix}"


def output_name(job_id: str, params: Mapping[str, Any]) -> str:
    """What a job's pictures are named by: its id; for a job of one input picture, that
    picture's stem and the job's seed (``render_003_1234``: its first seed input in key order;
    the stem alone when it varies none), so a folder of renders comes back named."""
    pictures = {ref.sha256: ref for ref in picture_params(params).values()}
    if len(pictures) != 1:
        return job_id
    (ref,) = pictures.values()
    seeds = [params[key] for key in sorted(params) if is_seed(key)]
    seed = next((value for value in seeds if isinstance(value, int)), None)
    return ref.stem if seed is None else f"{ref.stem}_{seed}"


def batch_folder(output_dir: Path, batch_id: str) -> Path:
    """The batch's folder in the (resolved) output folder: the output folder may be a link,
    the batch's folder is never followed (``checked_batch_folder``)."""
    return output_dir.resolve() / _safe(batch_id)


def checked_batch_folder(output_dir: Path, batch_id: str) -> Path:
    """The batch's folder, made when missing.

    Raises:
        BatchFolderRefused: a link (even to a folder inside) or anything but a folder holds
            its name: nothing of that batch is written through it.
        OSError: the output folder cannot be written (``_room_in`` says so).
    """
    folder = batch_folder(output_dir, batch_id)
    with contextlib.suppress(FileExistsError):
        folder.mkdir(parents=True)
    found = folder.lstat().st_mode
    if stat.S_ISLNK(found):
        raise BatchFolderRefused(folder, "a link")
    if not stat.S_ISDIR(found):
        raise BatchFolderRefused(folder, "not a folder")
    return folder


def _safe(name: str) -> str:
    cleaned = _UNSAFE.sub("_", name).strip(".")
    return cleaned or "_"


def kept_images(entry: HistoryEntry) -> tuple[ImageRef, ...]:
    """The images worth keeping: the saved ones (``output``), or the previews when none was saved.

    A workflow with both SaveImage and PreviewImage nodes keeps only what it saved, as in
    ComfyUI's own output folder; a preview-only workflow still yields its pictures.
    """
    saved = tuple(image for image in entry.images if image.type == "output")
    return saved or entry.images


def output_refs(
    entry: HistoryEntry, max_pictures: int = MAX_PICTURES_PER_JOB
) -> tuple[list[dict[str, Any]], str]:
    """What a success records before its pictures are fetched: the references of the first
    ``max_pictures`` images worth keeping (as the ledger stores them), and a note about those
    left on the server."""
    images = kept_images(entry)
    note = ""
    if len(images) > max_pictures:
        left = len(images) - max_pictures
        note = (
            f"{left} of its {len(images)} pictures left on the server (at most {max_pictures} "
            "are kept a job)"
        )
    return [asdict(image) for image in images[:max_pictures]], note


def image_refs(stored: Sequence[Mapping[str, Any]]) -> list[ImageRef]:
    """The references a success recorded, as the client downloads them."""
    names = {f.name for f in fields(ImageRef)}
    return [ImageRef(**{k: v for k, v in ref.items() if k in names}) for ref in stored]


@dataclass(frozen=True)
class Fetched:
    """What fetching a success's pictures came to."""

    paths: list[str]  # the files written (or identical ones reused), in the references' order
    warnings: list[str]  # pictures not fetched, and why
    gone: int  # of those, how many the server no longer has (404)


async def fetch_outputs(
    client: ComfyClient,
    refs: Sequence[ImageRef],
    output_dir: Path,
    batch_id: str,
    job_id: str,
    name: str | None = None,
) -> Fetched:
    """Download the images at ``refs`` (a recorded success's) into the output folder, named
    by ``name`` (``output_name``; the job's id when None); a PNG gets the A1111 parameters
    text of the workflow it carries (`add_own_parameters`), as image browsers read it.

    The paths are the files actually written, never an existing file replaced; an image
    downloaded again (after a crash before the ledger recorded it) reuses its identical file.

    Raises:
        TransientComfyError: the server became unreachable: try again later (nothing recorded).
        OutputFolderBlocked: no room for a picture (OutputFolderFull), or the folder cannot be
            written (the files already written are reused when this is tried again): try
            again later (nothing recorded).
        BatchFolderRefused: the batch's folder is a link, or not a folder (nothing written).
    """
    paths: list[str] = []
    warnings: list[str] = []
    gone = 0
    for index, image in enumerate(refs, start=1):
        dest = output_path(output_dir, batch_id, name or job_id, index, image.filename)
        with _room_in(output_dir):
            checked_batch_folder(output_dir, batch_id)
            try:
                written = await client.download(image, dest, finish=add_own_parameters)
            except TransientComfyError:
                raise
            except (ComfyError, FileExistsError) as exc:
                log.warning("output %s of %s not downloaded: %s", image.filename, job_id, exc)
                warnings.append(f"output {image.filename!r} not downloaded: {exc}")
                gone += isinstance(exc, ComfyNotFound)
                continue
        paths.append(str(written))
    return Fetched(paths, warnings, gone)


@contextlib.contextmanager
def _room_in(output_dir: Path) -> Iterator[None]:
    """Turn a full disk (or quota) under ``output_dir`` into OutputFolderFull, a folder that
    cannot be written (a file in its path, no permission, read-only) into OutputFolderBlocked."""
    try:
        yield
    except OSError as exc:
        if exc.errno in NO_ROOM:
            raise OutputFolderFull(output_dir) from exc
        if exc.errno in UNWRITABLE:
            why = f"cannot be written ({exc.strerror}: {exc.filename or output_dir})"
            raise OutputFolderBlocked(output_dir, why) from exc
        raise
