"""A picture as a job's value: the file's content hash, its name and where it came from.

A job's params (``NODE_ID.INPUT -> value``) hold ``PictureRef.to_param()`` for an input that
takes an uploaded picture (LoadImage's ``image``). The prompt sent to a server holds, in its
place, the name that server returned when the picture was uploaded (``batchline/<name>``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

UPLOAD_SUBFOLDER = "batchline"  # the server's input subfolder Batchline uploads into
PICTURE_KEY = "picture"

_SHA256 = re.compile(r"[0-9a-f]{64}")
_SUFFIX = re.compile(r"\.[a-z0-9]{1,8}")
_FIELDS = ("sha256", "file", "source", "size")


@dataclass(frozen=True)
class PictureRef:
    """One picture by content: its sha256 (hex), its file's name, the absolute source path
    when it was queued, and its size in bytes."""

    sha256: str
    file: str
    source: str
    size: int

    @property
    def stem(self) -> str:
        """The source file's name without its suffix: ``render_003``."""
        return PurePath(self.file).stem or self.file

    @property
    def server_name(self) -> str:
        """The name it is uploaded under: the first 32 hex digits of its hash and its file's
        suffix in lower case (``.png`` when it has none, or one no server would keep)."""
        suffix = PurePath(self.file).suffix.lower()
        if not _SUFFIX.fullmatch(suffix):
            suffix = ".png"
        return f"{self.sha256[:32]}{suffix}"

    def to_param(self) -> dict[str, Any]:
        """The job value: ``{"picture": {"sha256": .., "file": .., "source": .., "size": ..}}``."""
        return {
            PICTURE_KEY: {
                "sha256": self.sha256,
                "file": self.file,
                "source": self.source,
                "size": self.size,
            }
        }

    @classmethod
    def from_param(cls, value: Any) -> PictureRef | None:
        """The picture a job value holds; None when ``value`` is not such a value."""
        if not isinstance(value, Mapping) or set(value) != {PICTURE_KEY}:
            return None
        inner = value[PICTURE_KEY]
        if not isinstance(inner, Mapping) or set(inner) != set(_FIELDS):
            return None
        sha, file, source, size = (inner[name] for name in _FIELDS)
        if not (isinstance(sha, str) and _SHA256.fullmatch(sha)):
            return None
        if not (isinstance(file, str) and file and isinstance(source, str)):
            return None
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            return None
        return cls(sha, file, source, size)


def picture_params(params: Mapping[str, Any]) -> dict[str, PictureRef]:
    """The pictures among a job's ``params``: ``NODE_ID.INPUT -> PictureRef``, in key order."""
    found = {}
    for key in sorted(params):
        ref = PictureRef.from_param(params[key])
        if ref is not None:
            found[key] = ref
    return found


def picture_label(value: Any) -> str | None:
    """The label of a picture value (its source file's stem); None for any other value."""
    ref = PictureRef.from_param(value)
    return None if ref is None else ref.stem


def picture_json(ref: PictureRef) -> dict[str, Any]:
    """A picture as a job's JSON lists it (`batchline show --json`, the HTTP API):
    ``{"file": .., "source": .., "sha256": .., "size": ..}``."""
    return {"file": ref.file, "source": ref.source, "sha256": ref.sha256, "size": ref.size}


def pictures_json(params: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The pictures among a job's ``params`` as its JSON lists them: ``NODE_ID.INPUT ->
    picture_json``, in key order (empty when it has none)."""
    return {key: picture_json(ref) for key, ref in picture_params(params).items()}
