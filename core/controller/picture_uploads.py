"""A job's input pictures put on its server before its attempt is written and sent.

Each picture goes to each server once: uploaded under its content name (``PictureRef.
server_name``) into Batchline's input subfolder, overwrite off (a server's file is never
replaced: jobs still waiting may read it), and the prompt carries the name the server returned
(ComfyUI renames an upload whose name other bytes hold). The ledger keeps that name per server
and picture (``Ledger.server_pictures``), for every batch after and every controller after.

Whether the server still has it is known for one connection: a server that may have restarted
(``ServerState.epoch``) may have lost its input folder (a new machine, a wiped folder), so a
picture known from the ledger but not seen since is looked up once (``has_input``, ``HEAD
/view``) and uploaded again when missing. A prompt refused all the same for one of our pictures
(``Invalid image file``: its folder wiped with the server running) forgets that it was seen
(``forget``), and its job is placed again; so does a prompt that validated but whose picture
node found no file as it ran (the folder wiped while it waited in the server's queue:
``lost_in_run``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from core.errors import ComfyNotFound, ComfyUploadRefused, InputError
from core.inputs import UPLOAD_SUBFOLDER, PictureRef, PictureStore, picture_params

if TYPE_CHECKING:
    from collections.abc import Mapping

    from core.comfy import ComfyClient
    from core.controller.server_state import ServerState
    from core.errors import ExecutionFailure, NodeError
    from core.ledger import Ledger

log = logging.getLogger(__name__)

# What ComfyUI's LoadImage says of a file its input folder does not have (VALIDATE_INPUTS).
MISSING_PICTURE = "Invalid image file"
# What LoadImage raises running a prompt whose file went after the prompt validated.
LOST_IN_RUN = "FileNotFoundError"


@dataclass(frozen=True)
class JobPictures:
    """What one job's pictures came to on one server."""

    pictures: Mapping[str, PictureRef] = field(default_factory=dict)  # NODE_ID.INPUT -> ref
    values: Mapping[str, str] = field(default_factory=dict)  # sha256 -> what the prompt names
    refused: str = ""  # why the job cannot be sent anywhere (one line naming the picture)
    refused_input: str = ""  # the NODE_ID.INPUT of the picture refused


class PictureRefused(Exception):
    """A picture that cannot go to the server (refused there, or its kept copy is gone)."""


class PictureUploads:
    """The pictures one server has, as this controller knows them (see the module's docstring).

    Raises from ``ready``: ``TransientComfyError`` and ``ComfyProtocolError`` when the server
    cannot be asked or answers what cannot be read (the job stays pending); ``ComfyAuthError``
    as any request.
    """

    def __init__(
        self,
        ledger: Ledger,
        client: ComfyClient,
        server: ServerState,
        store: PictureStore | None = None,
    ) -> None:
        self._ledger, self._client, self._server = ledger, client, server
        self._store = store or PictureStore.of(ledger)
        self._seen: dict[str, tuple[int, str]] = {}  # sha256 -> (epoch seen in, value)
        self._refused: dict[str, tuple[int, str]] = {}  # sha256 -> (epoch, why)

    async def ready(self, params: Mapping[str, Any]) -> JobPictures:
        """Make sure every picture of a job's ``params`` is on the server; what each is called
        there, or why one cannot be."""
        pictures = picture_params(params)
        values: dict[str, str] = {}
        for key, ref in pictures.items():
            if ref.sha256 in values:
                continue
            try:
                values[ref.sha256] = await self._on_server(ref)
            except PictureRefused as exc:
                return JobPictures(pictures, values, str(exc), key)
        return JobPictures(pictures, values)

    def forget(self, sha256: str) -> None:
        """The server refused a prompt for lacking this picture: look it up before next use."""
        self._seen.pop(sha256, None)

    def missing(
        self, pictures: Mapping[str, PictureRef], errors: tuple[NodeError, ...]
    ) -> list[str]:
        """The hashes of ``pictures`` that a refusal's ``errors`` say the server lacks (LoadImage's
        ``Invalid image file`` on one of their inputs)."""
        lacking = []
        for error in errors:
            ref = pictures.get(f"{error.node_id}.{error.input_name}")
            said = f"{error.message} {error.details}"
            if ref is not None and MISSING_PICTURE in said and ref.sha256 not in lacking:
                lacking.append(ref.sha256)
        return lacking

    def lost_in_run(self, params: Mapping[str, Any], failure: ExecutionFailure) -> list[str]:
        """The hashes of a job's pictures that its run failed without: the server's input
        folder was wiped after the prompt was queued (it validated), so the picture node
        raised ``FileNotFoundError`` as it ran. The prompt never got past that node."""
        if failure.exception_type != LOST_IN_RUN or failure.node_id is None:
            return []
        node = f"{failure.node_id}."
        return sorted(
            {ref.sha256 for key, ref in picture_params(params).items() if key.startswith(node)}
        )

    async def _on_server(self, ref: PictureRef) -> str:
        epoch = self._server.epoch  # a restart noticed meanwhile: looked up again next time
        seen = self._seen.get(ref.sha256)
        if seen is not None and seen[0] == epoch:
            return seen[1]
        refused = self._refused.get(ref.sha256)
        if refused is not None and refused[0] == epoch:
            raise PictureRefused(refused[1])
        known = self._ledger.server_pictures.get(self._server.url, ref.sha256)
        if known is not None and await self._client.has_input(*_name_and_folder(known)):
            value = known
        else:
            value = await self._upload(ref, epoch)
        self._seen[ref.sha256] = (epoch, value)
        return value

    async def _upload(self, ref: PictureRef, epoch: int) -> str:
        """Upload ``ref``'s kept copy, overwrite off; the name the server returned, held to
        be written with the tick's observations (lost in a crash, the same upload again gets
        the same name back: ComfyUI compares the bytes)."""
        url = self._server.url
        try:
            data = self._store.read(ref)
        except InputError as exc:
            raise self._refuse(ref, epoch, str(exc)) from None
        try:
            uploaded = await self._client.upload_image(
                data, ref.server_name, subfolder=UPLOAD_SUBFOLDER
            )
        except ComfyUploadRefused as exc:
            raise self._refuse(
                ref, epoch, f"{url} refused the picture {ref.file}: {exc.reason}"
            ) from None
        except ComfyNotFound:
            raise self._refuse(
                ref, epoch, f"{url} takes no uploads (no /upload/image): the picture {ref.file}"
            ) from None
        value = uploaded.value
        log.info("%s: uploaded %s as %s", url, ref.file, value)
        self._server.hold(self._ledger.server_pictures.put, url, ref.sha256, value)
        return value

    def _refuse(self, ref: PictureRef, epoch: int, why: str) -> PictureRefused:
        self._refused[ref.sha256] = (epoch, why)
        log.info("%s", why)
        return PictureRefused(why)


def _name_and_folder(value: str) -> tuple[str, str]:
    """``batchline/x.png`` -> (``x.png``, ``batchline``), as ``has_input`` takes them."""
    folder, _, name = value.rpartition("/")
    return name, folder
