"""Batchline's own copy of every queued picture, kept by content in the data folder.

A job keeps its picture's source path and hash; the bytes it uploads are the copy made when it
was queued, so a source file changed, moved or deleted afterwards changes no waiting job.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from PIL import Image

from core.errors import InputError
from core.inputs.picture_ref import PictureRef

if TYPE_CHECKING:
    from core.ledger import Ledger

# ComfyUI's default limit for a whole upload request is 100 MB (--max-upload-size 100, in MiB):
# the picture, with room for the multipart request's other fields.
MAX_PICTURE_BYTES = 100 * 1024 * 1024 - 64 * 1024
FOLDER_NAME = "inputs"


class PictureStore:
    """Pictures by content hash under ``root`` (one file each, named by ``PictureRef``)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @classmethod
    def of(cls, ledger: Ledger) -> PictureStore:
        """The store beside ``ledger``: ``<data folder>/inputs``."""
        return cls(ledger.folder / FOLDER_NAME)

    def add(self, path: Path) -> PictureRef:
        """Check the picture at ``path`` and keep a copy of the bytes read (once).

        Raises:
            InputError: one line naming the file: it is missing, a folder, unreadable, empty,
                not a picture, or larger than ``MAX_PICTURE_BYTES``; nothing is stored then.
        """
        data = _read_picture(path)
        source = path.absolute()
        return self._added(data, source.name, str(source), str(path))

    def check(self, path: Path) -> PictureRef:
        """What ``add`` would make of the picture at ``path``, nothing kept (a dry run).

        Raises:
            InputError: as ``add``.
        """
        data = _read_picture(path)
        source = path.absolute()
        return self._added(data, source.name, str(source), str(path), keep=False)

    def add_bytes(self, data: bytes, file: str, source: str | None = None) -> PictureRef:
        """Check the picture ``data`` (a file called ``file``, sent rather than read from this
        computer's disk) as ``add`` checks a file, and keep a copy; ``source`` says where it
        came from (default ``api:<file>``: through the HTTP API).

        Raises:
            InputError: one line naming ``file``: empty, not a picture, or larger than
                ``MAX_PICTURE_BYTES``; nothing is stored then.
        """
        if not data:
            raise InputError(f"{file}: the file is empty, not a picture")
        if len(data) > MAX_PICTURE_BYTES:
            raise InputError(_too_large(file, len(data)))
        return self._added(data, file, f"api:{file}" if source is None else source, file)

    def has(self, ref: PictureRef) -> bool:
        """Whether a copy of ``ref`` is kept (a file of its name and size: only a checked
        copy is ever put there; ``read`` checks its bytes)."""
        try:
            return self.path_of(ref).stat().st_size == ref.size
        except OSError:
            return False

    def _added(
        self, data: bytes, file: str, source: str, named: str, *, keep: bool = True
    ) -> PictureRef:
        """Check ``data`` (named ``named`` in messages), then keep it (unless not ``keep``)
        as the picture ``file`` from ``source``."""
        _check_picture(named, data)
        ref = PictureRef(hashlib.sha256(data).hexdigest(), file, source, len(data))
        if keep:
            self._keep(ref, data)
        return ref

    def read(self, ref: PictureRef) -> bytes:
        """The stored bytes of ``ref``.

        Raises:
            InputError: the stored copy is gone, unreadable or no longer holds those bytes.
        """
        stored = self.path_of(ref)
        try:
            data = stored.read_bytes()
        except FileNotFoundError:
            raise InputError(
                f"the copy of {ref.file} Batchline kept ({stored}) is gone: queue it again"
            ) from None
        except OSError as exc:
            raise InputError(
                f"the copy of {ref.file} Batchline kept ({stored}) cannot be read "
                f"({exc.strerror or exc})"
            ) from None
        if hashlib.sha256(data).hexdigest() != ref.sha256:
            raise InputError(
                f"the copy of {ref.file} Batchline kept ({stored}) has changed: queue it again"
            )
        return data

    def path_of(self, ref: PictureRef) -> Path:
        """Where the copy of ``ref`` is kept: ``<root>/<sha256><suffix>``."""
        return self.root / f"{ref.sha256}{Path(ref.server_name).suffix}"

    def _keep(self, ref: PictureRef, data: bytes) -> None:
        """Write ``data`` under its name unless an intact copy is there: a temporary file
        renamed into place, so a copy is never seen half written."""
        dest = self.path_of(ref)
        with contextlib.suppress(InputError):
            self.read(ref)
            return
        try:
            self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
            part = dest.with_name(f"{dest.name}.{os.getpid()}.part")
            part.write_bytes(data)
            os.replace(part, dest)
        except OSError as exc:
            raise InputError(
                f"{ref.source}: cannot keep a copy in {self.root} ({exc.strerror or exc})"
            ) from None


def _read_picture(path: Path) -> bytes:
    """The bytes of ``path``, read once, at most ``MAX_PICTURE_BYTES`` + 1 of them."""
    try:
        with path.open("rb") as file:
            data = file.read(MAX_PICTURE_BYTES + 1)
    except FileNotFoundError:
        raise InputError(f"{path}: no such picture file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: a folder, not a picture file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if not data:
        raise InputError(f"{path}: the file is empty, not a picture")
    if len(data) > MAX_PICTURE_BYTES:
        raise InputError(_too_large(str(path), _size_of(path, len(data))))
    return data


def _too_large(named: str, size: int) -> str:
    return (
        f"{named}: too large to upload ({size / 2**20:.1f} MiB; a ComfyUI server takes at "
        f"most {MAX_PICTURE_BYTES / 2**20:.1f} MiB by default)"
    )


def _size_of(path: Path, read: int) -> int:
    try:
        return max(path.stat().st_size, read)
    except OSError:
        return read


def _check_picture(path: str, data: bytes) -> None:
    """Refuse bytes Pillow (which ComfyUI's LoadImage opens them with) cannot read."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as picture:
                picture.verify()
    except Image.DecompressionBombError:
        raise InputError(f"{path}: the picture has too many pixels to load") from None
    except Exception:  # Pillow's readers raise many kinds for a file that is not a picture
        raise InputError(f"{path}: not a picture (Pillow cannot read it)") from None
