"""Input pictures as job values: a picture referred to by its content (``PictureRef``),
Batchline's own copy of each queued picture (``PictureStore``), and which files "one job per
picture" takes (``picture_paths``)."""

from core.inputs.picture_files import picture_paths
from core.inputs.picture_ref import (
    PICTURE_KEY,
    UPLOAD_SUBFOLDER,
    PictureRef,
    picture_json,
    picture_label,
    picture_params,
    pictures_json,
)
from core.inputs.picture_store import MAX_PICTURE_BYTES, PictureStore

__all__ = [
    "MAX_PICTURE_BYTES",
    "PICTURE_KEY",
    "UPLOAD_SUBFOLDER",
    "PictureRef",
    "PictureStore",
    "picture_json",
    "picture_label",
    "picture_params",
    "picture_paths",
    "pictures_json",
]
