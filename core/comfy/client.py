"""ComfyClient: the async HTTP client of one ComfyUI server over one long-lived AsyncClient."""

from __future__ import annotations

import asyncio
import contextlib
import mimetypes
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self
from urllib.parse import quote

import aiohttp
import httpx
from httpx_aiohttp import HttpxAiohttpClient

from core.comfy.auth import Auth, Verify, auth_headers, ssl_context
from core.comfy.bodies import (
    MAX_ANSWER_BYTES,
    MAX_CATALOGUE_BYTES,
    Answer,
    check_declared_size,
    read_body,
    read_prefix,
)
from core.comfy.download import DEFAULT_MAX_BYTES, stream_to_file
from core.comfy.http_errors import deadline_error, status_error, transport_error
from core.comfy.jobs import (
    JOB_PENDING,
    JOB_RUNNING,
    JobInfo,
    PromptLookup,
    PromptState,
    parse_job_detail,
)
from core.comfy.listener import Listener
from core.comfy.node_errors import parse_rejection
from core.comfy.responses import (
    HistoryEntry,
    ImageRef,
    QueueSnapshot,
    SubmitResult,
    SystemStats,
    parse_history,
    parse_object_info,
    parse_queue,
    parse_submit,
    parse_system_stats,
)
from core.comfy.shapes import JsonObject, Shape
from core.comfy.upload import (
    MAX_UPLOAD_ANSWER_BYTES,
    REFUSING_STATUSES,
    UploadedImage,
    parse_upload,
    upload_refusal,
)
from core.errors import ComfyOutputTooLarge, ComfyProtocolError

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable, Mapping
    from types import TracebackType

    from core.comfy.backoff import Backoff

# Connecting is quick or hopeless; answers may wait behind a busy server (object_info is MBs).
READ_TIMEOUT_S = 30.0
CONNECT_TIMEOUT_S = 5.0
DEFAULT_TIMEOUT = httpx.Timeout(READ_TIMEOUT_S, connect=CONNECT_TIMEOUT_S)
# A picture (up to 256 MiB) may take minutes on a slow link; a trickle must still end. An
# uploaded picture (up to ComfyUI's 100 MB request limit) is given the same time.
DOWNLOAD_DEADLINE_S = 300.0
_HOT_ROUTES = ("/prompt", "/queue", "/view", "/upload/image")


def new_prompt_id() -> str:
    """A fresh canonical lowercase UUID: the form newer servers require for client prompt ids."""
    return str(uuid.uuid4())


def server_address(text: str) -> str:
    """``text`` as a server's base URL (no trailing slash).

    Raises:
        ValueError: it is not an http(s) address with a host and a valid port, or it holds a
            user name or password (the message never repeats them).
    """
    try:
        url = httpx.URL(text)
    except httpx.InvalidURL:
        url = None
    if url is not None and url.userinfo:
        raise ValueError(
            f"no user name or password in a server address ({url.copy_with(userinfo=b'')}): "
            "a token goes in the app's Settings (kept in the keyring) or in $BATCHLINE_TOKEN"
        )
    if url is None or url.scheme not in ("http", "https") or not url.host:
        raise ValueError(f"not an http(s) server address: {text!r}")
    if url.port is not None and not 0 < url.port < 65536:
        raise ValueError(f"port {url.port} is not 1-65535 in server address {text!r}")
    return str(url).rstrip("/")


class ComfyClient:
    """Talks HTTP to one ComfyUI server; one instance per server, closed with ``aclose``.

    Every answer is validated: a wrong shape raises ComfyProtocolError naming the route, and
    transport failures and status codes map onto the core.errors tree. Every request has an
    overall deadline (ComfyTimeout) and every answer a size limit (ComfyAnswerTooLarge): a
    server that trickles or floods its answer cannot hang or exhaust the caller. Whether the
    server has the newer jobs API is probed once per client and then preferred.
    """

    def __init__(
        self,
        base_url: str,
        *,
        client_id: str | None = None,
        auth: Auth | None = None,
        verify: Verify = True,
        timeout: httpx.Timeout = DEFAULT_TIMEOUT,
        deadline: float | None = None,
        download_deadline: float = DOWNLOAD_DEADLINE_S,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        """Create the client (no I/O yet).

        Args:
            base_url: ``http://host:port`` (or https, optionally with a path prefix).
            client_id: routes this client's WebSocket events; a stable random id by default.
            auth: bearer or basic credentials sent on every request and the WebSocket.
            verify: certificate verification for https: on by default; False, a CA bundle
                path or an SSLContext as in httpx.
            timeout: the timeouts of each connect, read and write.
            deadline: seconds a whole request may take, its answer read to the end (default:
                the read timeout).
            download_deadline: the same for an image from ``/view`` and for an upload.
            transport: an httpx transport to use instead of the network (tests).
        """
        self.base_url = server_address(base_url)
        self.client_id = client_id or uuid.uuid4().hex
        self._auth = auth
        self._verify = verify
        self._deadline = deadline or timeout.read or READ_TIMEOUT_S
        self._download_deadline = download_deadline
        # httpx over aiohttp's HTTP/1.1 client: a request costs about two thirds of the CPU it
        # does over httpx's own stack. Proxies from the environment are kept.
        self._http = HttpxAiohttpClient(
            base_url=self.base_url,
            headers=auth_headers(auth),
            verify=ssl_context(verify) if isinstance(verify, str) else verify,
            timeout=timeout,
            transport=transport,
        )
        # The routes every job takes, as absolute URLs made once: merging a path with the base
        # URL parsed two URLs a request, a tenth of its CPU.
        self._routes = {path: httpx.URL(self.base_url + path) for path in _HOT_ROUTES}
        self._jobs_api: bool | None = None
        self._jobs_cancel = True  # False once the server lacked the cancel route
        self._probe_lock = asyncio.Lock()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    # --- prompts and the queue ----------------------------------------------------------------

    async def submit(
        self,
        prompt: Mapping[str, Any],
        prompt_id: str,
        *,
        extra_data: Mapping[str, Any] | None = None,
    ) -> SubmitResult:
        """Queue an API-format prompt under our own ``prompt_id`` (``POST /prompt``).

        A 200 whose ``node_errors`` is not empty is returned, not raised: the server dropped
        those outputs and runs the rest. ``SubmitResult.prompt_id`` is the id the server
        reports (an old server ignores ours).

        Raises:
            ComfyRejected: HTTP 400, with the parsed error and node errors.
        """
        _segment(prompt_id)  # refuses an empty id
        body = {
            "prompt": dict(prompt),
            "prompt_id": prompt_id,
            "client_id": self.client_id,
            "extra_data": dict(extra_data or {}),
        }
        answer = await self._call("POST", "/prompt", json=body, accept=(400,))
        if answer.status == 400:
            raise parse_rejection(answer.json(), answer.route)
        return parse_submit(answer.json(), answer.route)

    async def queue(self) -> QueueSnapshot:
        """``GET /queue``: running and pending prompts, pending in run order."""
        answer = await self._call("GET", "/queue")
        return parse_queue(answer.json(), answer.route)

    async def delete(self, *prompt_ids: str) -> None:
        """Remove pending prompts (``POST /queue`` delete); a running one is untouched."""
        if prompt_ids:
            await self._call("POST", "/queue", json={"delete": list(prompt_ids)})

    async def interrupt(self, prompt_id: str) -> None:
        """Interrupt ``prompt_id`` only if it is running now; never the global form."""
        if not prompt_id:
            raise ValueError("an empty prompt_id would interrupt whatever runs")
        await self._call("POST", "/interrupt", json={"prompt_id": prompt_id})

    # --- history ------------------------------------------------------------------------------

    async def history(self, prompt_id: str) -> HistoryEntry | None:
        """``GET /history/{id}``: the entry, or None while the server does not know it."""
        answer = await self._call("GET", f"/history/{_segment(prompt_id)}")
        entries = parse_history(answer.json(), answer.route)
        for entry in entries:
            if entry.prompt_id == prompt_id:
                return entry
        if entries:
            raise Shape(answer.route).fail("body", f"an entry for {prompt_id!r}", entries)
        return None

    # --- other routes -------------------------------------------------------------------------

    async def download(
        self,
        image: ImageRef,
        dest: Path,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        finish: Callable[[Path], None] | None = None,
    ) -> Path:
        """Stream an output image from ``/view`` to ``dest``; returns the file written.

        The server's file name is only sent as a query value, never used as a local path.
        The file appears complete or not at all, and never replaces an existing file: when
        ``dest`` is taken the next free numbered name beside it is used, or an identical file
        already there (`core.files.place`). ``finish`` is given the complete file before it
        takes its name (`stream_to_file`).

        Raises:
            ComfyOutputTooLarge: the body exceeds ``max_bytes`` (nothing is kept).
            ComfyNotFound: the server has no such file.
            ComfyTimeout: the file was not complete within the download deadline.
        """
        params = {"filename": image.filename, "subfolder": image.subfolder, "type": image.type}
        async with self._stream("GET", "/view", self._download_deadline, params=params) as (
            response,
            route,
        ):
            await _raise_for_status(response, route)
            check_declared_size(response, max_bytes, route, ComfyOutputTooLarge)
            return await stream_to_file(response, Path(dest), max_bytes, route, finish)

    async def has_output(self, image: ImageRef) -> bool:
        """Whether the server has the output file ``image`` names (``/view`` answers it; the
        body is not read): a finished prompt's pictures can be found after its history is
        gone, where their names are known beforehand.

        Raises:
            ComfyError: any answer but the file or 404.
        """
        params = {"filename": image.filename, "subfolder": image.subfolder, "type": image.type}
        return await self._answers_file("GET", params, self._download_deadline)

    async def upload_image(
        self, data: bytes, filename: str, *, subfolder: str = "", overwrite: bool = False
    ) -> UploadedImage:
        """Upload a picture into the server's input folder (``POST /upload/image``, multipart:
        ``image``, ``type=input``, ``subfolder``, and ``overwrite`` only when True).

        Returns:
            Where the server put it; its ``value`` is what LoadImage takes. ComfyUI answers
            the same name for the same bytes (writing nothing) and ``name (1).png`` when other
            bytes have the name already, unless ``overwrite``.

        Raises:
            ValueError: an empty ``filename``.
            ComfyUploadRefused: HTTP 400, 403 or 413, with the status and a reason (a 500 is
                a server error: transient, as for other routes).
            ComfyError: as for other routes (transient failures, a wrong answer, no complete
                answer within the download deadline).
        """
        if not filename:
            raise ValueError("an upload needs a file name")
        kind = mimetypes.guess_type(filename)[0] or "application/octet-stream"
        fields = {"type": "input", "subfolder": subfolder}
        if overwrite:
            fields["overwrite"] = "true"
        files = {"image": (filename, data, kind)}
        deadline = self._download_deadline
        async with self._stream("POST", "/upload/image", deadline, data=fields, files=files) as (
            response,
            route,
        ):
            status = response.status_code
            if status in REFUSING_STATUSES:
                raise upload_refusal(status, await read_prefix(response), filename, route)
            await _raise_for_status(response, route)
            body = await read_body(response, MAX_UPLOAD_ANSWER_BYTES, route)
        return parse_upload(Answer(status, body, route).json(), route)

    async def has_input(self, name: str, subfolder: str = "") -> bool:
        """Whether the server's input folder has ``subfolder/name`` (``HEAD /view``; nothing
        of the file is sent): a restarted server keeps its input folder, a new or wiped one
        does not.

        Raises:
            ValueError: an empty ``name``.
            ComfyError: any answer but 200 or 404.
        """
        if not name:
            raise ValueError("an input file needs a name")
        params = {"filename": name, "type": "input", "subfolder": subfolder}
        return await self._answers_file("HEAD", params, self._deadline)

    async def _answers_file(self, method: str, params: dict[str, str], deadline: float) -> bool:
        """Whether ``/view`` has the file ``params`` name (its body is never read): False on
        404, True on a success, ComfyError on anything else."""
        async with self._stream(method, "/view", deadline, params=params) as (response, route):
            if response.status_code == 404:
                return False
            await _raise_for_status(response, route)
            return True

    async def system_stats(self) -> SystemStats:
        answer = await self._call("GET", "/system_stats")
        return parse_system_stats(answer.json(), answer.route)

    async def object_info(self) -> dict[str, JsonObject]:
        """The node catalogue: class name → definition (up to ``MAX_CATALOGUE_BYTES``)."""
        answer = await self._call("GET", "/object_info", limit=MAX_CATALOGUE_BYTES)
        return parse_object_info(answer.json(), answer.route)

    # --- jobs API (newer servers) and the version-independent verbs ---------------------------

    async def has_jobs_api(self) -> bool:
        """Whether the server has ``/api/jobs``; probed once per client."""
        async with self._probe_lock:
            if self._jobs_api is None:
                self._jobs_api = await self._probe_jobs_api()
            return self._jobs_api

    async def job(self, prompt_id: str) -> JobInfo | None:
        """``GET /api/jobs/{id}`` with outputs; None when the server does not know it."""
        answer = await self._call("GET", f"/api/jobs/{_segment(prompt_id)}", accept=(404,))
        if answer.status == 404:
            return None
        return parse_job_detail(answer.json(), answer.route)

    async def cancel(self, prompt_id: str) -> bool | None:
        """Cancel one prompt whether pending or running.

        Returns:
            The server's answer where ``POST /api/jobs/{id}/cancel`` exists (False: it was not
            pending or running); None elsewhere, where the cancel gets no feedback (delete,
            then targeted interrupt): confirm with ``lookup``. Servers with the jobs API but
            from before its cancel route (until mid-2026) answer that route 405; the client
            then falls back, and remembers.
        """
        if self._jobs_cancel and await self.has_jobs_api():
            path = f"/api/jobs/{_segment(prompt_id)}/cancel"
            answer = await self._call("POST", path, accept=(404, 405))
            if answer.status not in (404, 405):
                shape = Shape(answer.route)
                body = shape.obj(answer.json(), "body")
                return shape.flag(shape.key(body, "cancelled", "body"), "cancelled")
            self._jobs_cancel = False
        await self.delete(prompt_id)
        await self.interrupt(prompt_id)
        return None

    async def lookup(self, prompt_id: str) -> PromptLookup:
        """Where the prompt is now: pending, running, finished (with its entry) or unknown."""
        if await self.has_jobs_api():
            return _lookup_from_job(await self.job(prompt_id), f"GET /api/jobs/{prompt_id}")
        # /queue before /history: a prompt finishing between the reads is then seen in
        # history; the other order could miss it in both.
        place = (await self.queue()).place_of(prompt_id)
        if place is not None:
            return PromptLookup(PromptState(place))
        entry = await self.history(prompt_id)
        if entry is None:
            return PromptLookup(PromptState.unknown)
        return PromptLookup(PromptState.finished, entry)

    def listener(self, *, backoff: Backoff | None = None) -> Listener:
        """A WebSocket listener for this client's id, with the same credentials and TLS rules.

        Args:
            backoff: the reconnect delays (default: 0.5 s doubling up to 30 s, jittered).
        """
        url = httpx.URL(self.base_url)
        scheme = "wss" if url.scheme == "https" else "ws"
        path = url.path.rstrip("/") + "/ws"
        ws_url = url.copy_with(scheme=scheme, path=path, params={"clientId": self.client_id})
        return Listener(
            str(ws_url),
            self.client_id,
            headers=auth_headers(self._auth),
            ssl_context=ssl_context(self._verify) if scheme == "wss" else None,
            backoff=backoff,
        )

    # --- internals ----------------------------------------------------------------------------

    async def _probe_jobs_api(self) -> bool:
        answer = await self._call("GET", "/api/jobs", params={"limit": 1}, accept=(404, 405))
        if answer.status != 200:
            return False
        try:
            body = answer.json()
        except ComfyProtocolError:
            return False
        return isinstance(body, dict) and isinstance(body.get("jobs"), list)

    async def _call(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str | int] | None = None,
        json: Any = None,
        accept: tuple[int, ...] = (),
        limit: int = MAX_ANSWER_BYTES,
    ) -> Answer:
        """Send one request and read its answer within the deadline and ``limit``; map failures;
        return 2xx answers and those with ``accept`` codes."""
        async with self._stream(method, path, self._deadline, params=params, json=json) as (
            response,
            route,
        ):
            if response.status_code not in accept:
                await _raise_for_status(response, route)
            return Answer(response.status_code, await read_body(response, limit, route), route)

    @contextlib.asynccontextmanager
    async def _stream(
        self,
        method: str,
        path: str,
        deadline: float,
        *,
        params: Mapping[str, str | int] | None = None,
        json: Any = None,
        data: Mapping[str, str] | None = None,
        files: Mapping[str, tuple[str, bytes, str]] | None = None,
    ) -> AsyncIterator[tuple[httpx.Response, str]]:
        """One streamed request and its route, all of it (the body sent and the answer read
        inside too) within ``deadline`` seconds; httpx's failures become the core.errors tree.
        ``data`` and ``files`` make a multipart form."""
        route = f"{method} {path}"
        url = self._routes.get(path, path)
        budget = asyncio.timeout(deadline)
        request = self._http.stream(method, url, params=params, json=json, data=data, files=files)
        try:
            async with budget, request as answer:
                yield answer, route
        except TimeoutError as exc:
            if budget.expired():
                raise deadline_error(deadline, route) from exc
            raise
        except (httpx.HTTPError, aiohttp.ClientError) as exc:
            raise transport_error(exc, route) from exc


async def _raise_for_status(response: httpx.Response, route: str) -> None:
    """Raise the ComfyError of a non-2xx answer, quoting the start of its body."""
    if not 200 <= response.status_code < 300:
        error = status_error(response, await read_prefix(response), route)
        if error is not None:
            raise error


def _segment(value: str) -> str:
    """One URL path segment: a prompt id can never add path parts or a query."""
    if not value:
        raise ValueError("empty prompt_id")
    return quote(value, safe="")


def _lookup_from_job(job: JobInfo | None, route: str) -> PromptLookup:
    if job is None:
        return PromptLookup(PromptState.unknown)
    if job.status == JOB_PENDING:
        return PromptLookup(PromptState.pending)
    if job.status == JOB_RUNNING:
        return PromptLookup(PromptState.running)
    if job.finished:
        return PromptLookup(PromptState.finished, job.to_history_entry())
    Shape(route).fail("job.status", "a known job status", job.status)
