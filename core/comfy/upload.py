"""Pictures uploaded into a server's input folder (``POST /upload/image``): the name the server
gave (it renames on a clash), its answer checked, and its refusals in plain words."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.comfy.http_errors import snippet
from core.comfy.shapes import Shape
from core.errors import ComfyUploadRefused

# ComfyUI answers an upload with one small JSON object; anything bigger is not read.
MAX_UPLOAD_ANSWER_BYTES = 64 * 1024
# The statuses that refuse this picture for good (sending it again gets the same answer). A 500
# is not one: Batchline always sends type=input, so it is the server failing (a full disk, an
# exception in a custom node's hook) and passes as any server error does: the job waits.
REFUSING_STATUSES = (400, 403, 413)

_REASONS = {
    400: "the server refused the file name or subfolder",
    403: "the server forbids that folder",
    413: "the picture is larger than the server's upload limit",
}


@dataclass(frozen=True, slots=True)
class UploadedImage:
    """Where the server stored an uploaded picture, as its answer names it.

    ``name`` may differ from the name sent: ComfyUI adds `` (1)`` when a different file has
    that name already.
    """

    name: str
    subfolder: str
    type: str

    @property
    def value(self) -> str:
        """What LoadImage's ``image`` input takes: ``subfolder/name``, or ``name`` alone."""
        return f"{self.subfolder}/{self.name}" if self.subfolder else self.name


def parse_upload(body: Any, route: str) -> UploadedImage:
    """The 200 answer ``{"name": .., "subfolder": .., "type": ..}``.

    Raises:
        ComfyProtocolError: another shape, or an empty name.
    """
    shape = Shape(route)
    answer = shape.obj(body, "body")
    name = shape.text(shape.key(answer, "name", "body"), "name")
    if not name:
        shape.fail("name", "a file name", name)
    subfolder = shape.text(shape.key(answer, "subfolder", "body"), "subfolder")
    kind = shape.text(shape.key(answer, "type", "body"), "type")
    return UploadedImage(name, subfolder, kind)


def upload_refusal(status: int, body: bytes, filename: str, route: str) -> ComfyUploadRefused:
    """The error for a refusing status (``REFUSING_STATUSES``), naming the file and quoting
    the start of the server's answer."""
    reason = f"{_REASONS.get(status, 'the server refused the upload')} ({filename!r})"
    quoted = snippet(body)
    if quoted:
        reason += f": {quoted}"
    return ComfyUploadRefused(status, reason, route)
