"""``GET /view``: output, input and temp files with ComfyUI's 400/403/404 rules."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import TYPE_CHECKING

from aiohttp import web
from PIL import Image

if TYPE_CHECKING:
    from simulator.state import Folders

ANNOTATIONS = {" [output]": "output", " [input]": "input", " [temp]": "temp"}


def _folder(folders: Folders, kind: str) -> str | None:
    folder = {"output": folders.output, "input": folders.input, "temp": folders.temp}.get(kind)
    return os.path.abspath(folder) if folder is not None else None


def _annotated(filename: str) -> tuple[str, str | None]:
    for suffix, kind in ANNOTATIONS.items():
        if filename.endswith(suffix):
            return filename[: -len(suffix)], kind
    return filename, None


def resolve(folders: Folders, query: dict[str, str]) -> Path | int:
    """The file a /view query names, or the status code ComfyUI answers instead."""
    if "filename" not in query:
        return 404
    filename, kind = _annotated(query["filename"])
    if not filename or filename[0] == "/" or ".." in filename:
        return 400
    base = _folder(folders, kind or query.get("type", "output"))
    if base is None:
        return 400
    if "subfolder" in query:
        full = os.path.join(base, query["subfolder"])
        if os.path.commonpath((os.path.abspath(full), base)) != base:
            return 403
        base = full
    file = Path(base) / os.path.basename(filename)
    return file if file.is_file() else 404


class ViewRoute:
    """Serves stored files, optionally re-encoded (``preview``) or reduced to a channel."""

    def __init__(self, folders: Folders) -> None:
        self.folders = folders

    async def get(self, request: web.Request) -> web.StreamResponse:
        query = dict(request.rel_url.query)
        found = resolve(self.folders, query)
        if isinstance(found, int):
            return web.Response(status=found)
        if "preview" in query or query.get("channel") in ("rgb", "a"):
            return _converted(found, query)
        headers = {"Content-Disposition": f'filename="{found.name}"'}
        return web.FileResponse(found, headers=headers)


def _converted(file: Path, query: dict[str, str]) -> web.Response:
    with Image.open(file) as opened:
        image = opened.convert("RGBA")
    channel = query.get("channel", "rgba")
    if channel == "rgb":
        image = image.convert("RGB")
    elif channel == "a":
        image = image.getchannel("A")
    fmt, _, quality = query.get("preview", "png;90").partition(";")
    fmt = fmt if fmt in ("webp", "jpeg") else "png"
    if fmt == "jpeg" and image.mode == "RGBA":
        image = image.convert("RGB")
    buffer = io.BytesIO()
    image.save(buffer, format=fmt, quality=int(quality) if quality.isdigit() else 90)
    return web.Response(body=buffer.getvalue(), content_type=f"image/{fmt}")
