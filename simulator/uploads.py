"""ComfyUI 0.3.64's ``POST /upload/image`` (server.py ``image_upload``): a multipart picture
stored in the input (or temp, output) folder under its own name, the same bytes under that name
kept as they are, other bytes renamed ``name (1).png`` unless ``overwrite``; and the count of
uploads the simulator received, for tests."""

from __future__ import annotations

import asyncio
import hashlib
import os
from collections import Counter
from typing import TYPE_CHECKING, Any

from aiohttp import web

from simulator.http_layer import ClientGone, json_response, server_error

if TYPE_CHECKING:
    from multidict import MultiDictProxy

    from simulator.state import Folders


class UploadRoute:
    """``POST /upload/image``; counts every request it receives (``count``, and ``names``: the
    ``subfolder/filename`` asked for, each time)."""

    def __init__(self, folders: Folders) -> None:
        self.folders = folders
        self.count = 0
        self.names: Counter[str] = Counter()

    async def post(self, request: web.Request) -> web.StreamResponse:
        """Read the form (a body over the app's ``client_max_size`` is answered 413 by aiohttp,
        as ComfyUI's), then store the picture off the event loop."""
        self.count += 1
        try:
            post = await request.post()
        except ConnectionResetError as exc:
            raise ClientGone() from exc
        self._note(post)
        try:
            status, answer = await asyncio.to_thread(store, post, self.folders)
        except (TypeError, ValueError, AttributeError, OSError):
            return server_error()  # what aiohttp answers when ComfyUI's handler raises
        if answer is None:
            return web.Response(status=status)
        return json_response(answer, status)

    def _note(self, post: MultiDictProxy[Any]) -> None:
        image = post.get("image")
        filename = getattr(image, "filename", None)
        if isinstance(filename, str):
            subfolder = post.get("subfolder", "")
            self.names[f"{subfolder}/{filename}" if subfolder else filename] += 1

    def stats(self) -> dict[str, Any]:
        return {"uploads": self.count, "names": dict(self.names)}


def upload_dir(folders: Folders, kind: object) -> tuple[str, str]:
    """ComfyUI's ``get_dir_by_type``: the folder of ``type`` (input when absent). Another type
    raises, as ComfyUI's does (its local variable is unbound): the handler answers 500."""
    if kind is None:
        kind = "input"
    found = {"input": folders.input, "temp": folders.temp, "output": folders.output}.get(
        kind if isinstance(kind, str) else ""
    )
    if found is None:
        raise ValueError(f"no folder of type {kind!r}")
    return os.path.abspath(found), str(kind)


def store(post: MultiDictProxy[Any], folders: Folders) -> tuple[int, dict[str, str] | None]:
    """ComfyUI's ``image_upload``, step by step: the status and the JSON answer (None: an empty
    answer). Raises where ComfyUI's raises (a bad type, a field that is no file, a name it
    cannot write), which the route answers 500."""
    image = post.get("image")
    overwrite = post.get("overwrite")
    base, kind = upload_dir(folders, post.get("type"))
    if not image or not image.file:
        return 400, None
    filename = image.filename
    if not filename:
        return 400, None
    subfolder = post.get("subfolder", "")
    folder = os.path.join(base, os.path.normpath(subfolder))
    path = os.path.abspath(os.path.join(folder, filename))
    if os.path.commonpath((base, path)) != base:
        return 400, None
    os.makedirs(folder, exist_ok=True)
    stem, suffix = os.path.splitext(filename)
    duplicate = False
    if overwrite not in ("true", "1"):
        number = 1
        while os.path.exists(path):
            if _same_bytes(path, image.file):
                duplicate = True
                break
            filename = f"{stem} ({number}){suffix}"
            path = os.path.join(folder, filename)
            number += 1
    if not duplicate:
        with open(path, "wb") as out:
            out.write(image.file.read())
    return 200, {"name": filename, "subfolder": subfolder, "type": kind}


def _same_bytes(path: str, upload: Any) -> bool:
    """ComfyUI's ``compare_image_hash``: the stored file's bytes hash as the upload's."""
    with open(path, "rb") as stored:
        ours = hashlib.sha256(stored.read()).digest()
    theirs = hashlib.sha256(upload.read()).digest()
    upload.seek(0)
    return ours == theirs
