"""ComfyClient over httpx.MockTransport: only bodies and failures the simulator cannot make."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from core.comfy import BasicAuth, BearerAuth, ComfyClient, ImageRef
from core.errors import (
    ComfyAuthError,
    ComfyConnectionError,
    ComfyNotFound,
    ComfyOutputTooLarge,
    ComfyProtocolError,
    ComfyRejected,
    ComfyServerError,
    ComfyTimeout,
    ComfyUnreachable,
)

Handler = Callable[[httpx.Request], httpx.Response]
PNG = b"\x89PNG\r\n\x1a\n" + b"x" * 100


def names_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def answer(body: Any, status: int = 200) -> Handler:
    return lambda request: httpx.Response(status, json=body)


def raw(text: str, status: int = 200) -> Handler:
    return lambda request: httpx.Response(status, text=text)


# --- malformed bodies -------------------------------------------------------------------------

ENTRY = {"status": {"status_str": "success", "completed": True, "messages": []}, "outputs": {}}

HOSTILE = [
    ("GET /queue", "queue", (), raw("<html>oops</html>")),
    ("GET /queue", "queue", (), answer([])),
    ("GET /queue", "queue", (), answer({"queue_running": []})),
    ("GET /queue", "queue", (), answer({"queue_running": {}, "queue_pending": []})),
    ("GET /queue", "queue", (), answer({"queue_running": [], "queue_pending": [[1]]})),
    ("GET /queue", "queue", (), answer({"queue_running": [], "queue_pending": [["1", "p"]]})),
    ("GET /queue", "queue", (), answer({"queue_running": [], "queue_pending": [[1, 2]]})),
    ("GET /queue", "queue", (), answer({"queue_running": [[True, "p"]], "queue_pending": []})),
    (
        "GET /queue",
        "queue",
        (),
        answer({"queue_running": [[1, "p", {}, "x"]], "queue_pending": []}),
    ),
    ("GET /history/p", "history", ("p",), answer({"p": {"outputs": {}}})),
    ("GET /history/p", "history", ("p",), answer({"p": {**ENTRY, "status": {"status_str": 1}}})),
    (
        "GET /history/p",
        "history",
        ("p",),
        answer({"p": {**ENTRY, "status": {"status_str": "success", "completed": "yes"}}}),
    ),
    (
        "GET /history/p",
        "history",
        ("p",),
        answer({"p": {**ENTRY, "outputs": {"2": {"images": 5}}}}),
    ),
    (
        "GET /history/p",
        "history",
        ("p",),
        answer({"p": {**ENTRY, "outputs": {"2": {"images": [{}]}}}}),
    ),
    ("GET /history/p", "history", ("p",), answer({"p": {**ENTRY, "prompt": "x"}})),
    ("GET /history/p", "history", ("p",), answer({"other": ENTRY})),
    ("GET /history/p", "history", ("p",), answer(["p"])),
    ("GET /system_stats", "system_stats", (), answer({"system": []})),
    ("GET /system_stats", "system_stats", (), answer({"system": {}, "devices": [{"name": 1}]})),
    ("GET /object_info", "object_info", (), answer({"KSampler": []})),
    ("GET /object_info", "object_info", (), raw("[" * 50_000)),
]


@pytest.mark.asyncio
@pytest.mark.parametrize(("route", "method", "args", "handler"), HOSTILE)
async def test_hostile_bodies_are_protocol_errors(
    mock_client: ComfyClient,
    routes: dict[str, Handler],
    route: str,
    method: str,
    args: tuple[Any, ...],
    handler: Handler,
) -> None:
    routes[route] = handler
    with pytest.raises(ComfyProtocolError) as caught:
        await getattr(mock_client, method)(*args)
    assert caught.value.route == route


SUBMIT_HOSTILE = [
    answer({"prompt_id": "p"}),
    answer({"prompt_id": 5, "number": 1, "node_errors": {}}),
    answer({"prompt_id": "p", "number": "1", "node_errors": {}}),
    answer({"prompt_id": "p", "number": 1, "node_errors": []}),
    answer({"prompt_id": "p", "number": 1, "node_errors": {"1": {"class_type": "X"}}}),
    answer({"prompt_id": "p", "number": 1, "node_errors": {"1": {"errors": [{"type": 1}]}}}),
    raw("", 200),
    raw("Bad Request", 400),
    answer({"error": 5}, 400),
    answer({"error": {"message": "no type"}}, 400),
    answer({"node_errors": {}}, 400),
    raw("moved", 302),
    raw("too big", 413),
]


@pytest.mark.asyncio
@pytest.mark.parametrize("handler", SUBMIT_HOSTILE)
async def test_hostile_submit_answers(
    mock_client: ComfyClient, routes: dict[str, Handler], handler: Handler
) -> None:
    routes["POST /prompt"] = handler
    with pytest.raises(ComfyProtocolError, match="POST /prompt"):
        await mock_client.submit({}, "p")


@pytest.mark.asyncio
async def test_submit_request_carries_our_ids(
    mock_client: ComfyClient, routes: dict[str, Handler]
) -> None:
    seen: list[dict[str, Any]] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        return httpx.Response(200, json={"prompt_id": "p1", "number": 4, "node_errors": {}})

    routes["POST /prompt"] = handle
    result = await mock_client.submit({"1": {}}, "p1", extra_data={"extra_pnginfo": {"a": 1}})
    assert result.prompt_id == "p1"
    assert seen == [
        {
            "prompt": {"1": {}},
            "prompt_id": "p1",
            "client_id": mock_client.client_id,
            "extra_data": {"extra_pnginfo": {"a": 1}},
        }
    ]


@pytest.mark.asyncio
async def test_bare_error_string_is_still_a_rejection(
    mock_client: ComfyClient, routes: dict[str, Handler]
) -> None:
    routes["POST /prompt"] = answer({"error": "no_prompt", "node_errors": []}, 400)
    routes["POST /prompt"] = answer({"error": "invalid prompt"}, 400)
    with pytest.raises(ComfyRejected, match="invalid prompt"):
        await mock_client.submit({}, "p")


# --- status codes and transport failures --------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("status", "error"),
    [
        (500, ComfyServerError),
        (502, ComfyServerError),
        (429, ComfyServerError),
        (401, ComfyAuthError),
        (403, ComfyAuthError),
        (404, ComfyNotFound),
        (408, ComfyTimeout),
        (418, ComfyProtocolError),
    ],
)
async def test_status_codes_map_to_the_error_tree(
    mock_client: ComfyClient, routes: dict[str, Handler], status: int, error: type[Exception]
) -> None:
    routes["GET /queue"] = raw("500 Internal Server Error\n\nServer got itself in trouble", status)
    with pytest.raises(error, match=rf"GET /queue: (credentials refused \()?HTTP {status}"):
        await mock_client.queue()


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("exc", "error"),
    [
        (httpx.ConnectError("refused"), ComfyUnreachable),
        (httpx.ConnectTimeout("slow"), ComfyUnreachable),
        (httpx.PoolTimeout("busy"), ComfyUnreachable),
        (httpx.ReadError("reset"), ComfyConnectionError),
        (httpx.WriteError("broken pipe"), ComfyConnectionError),
        (httpx.RemoteProtocolError("closed early"), ComfyConnectionError),
        (httpx.ReadTimeout("slow"), ComfyTimeout),
    ],
)
async def test_transport_failures_map_to_transient_errors(
    mock_client: ComfyClient,
    routes: dict[str, Handler],
    exc: httpx.HTTPError,
    error: type[Exception],
) -> None:
    def fail(request: httpx.Request) -> httpx.Response:
        raise exc

    routes["POST /prompt"] = fail
    with pytest.raises(error, match="POST /prompt") as raised:
        await mock_client.submit({}, "p")
    # Only a failure to connect proves that nothing was sent.
    assert isinstance(raised.value, ComfyUnreachable) == (error is ComfyUnreachable)


# --- small request rules ------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_interrupt_is_always_targeted(
    mock_client: ComfyClient, routes: dict[str, Handler]
) -> None:
    bodies: list[bytes] = []
    routes["POST /interrupt"] = lambda request: (
        bodies.append(request.content),
        httpx.Response(200),
    )[1]
    await mock_client.interrupt("p1")
    assert [json.loads(b) for b in bodies] == [{"prompt_id": "p1"}]
    with pytest.raises(ValueError, match="interrupt"):
        await mock_client.interrupt("")
    assert len(bodies) == 1


@pytest.mark.asyncio
async def test_prompt_ids_stay_one_path_segment(
    mock_client: ComfyClient, routes: dict[str, Handler]
) -> None:
    paths: list[str] = []
    routes["GET /history/a/../b?x"] = lambda request: (
        paths.append(request.url.raw_path.decode()),
        httpx.Response(200, json={}),
    )[1]
    assert await mock_client.history("a/../b?x") is None
    assert paths == ["/history/a%2F..%2Fb%3Fx"]


@pytest.mark.asyncio
async def test_unknown_history_is_none(
    mock_client: ComfyClient, routes: dict[str, Handler]
) -> None:
    routes["GET /history/p"] = answer({})
    assert await mock_client.history("p") is None


# --- jobs API detection ---------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("handler", "expected"),
    [
        (raw("404: Not Found", 404), False),
        (raw("Method Not Allowed", 405), False),
        (raw("<html>frontend</html>"), False),
        (answer({"items": []}), False),
        (answer({"jobs": [], "pagination": {}}), True),
    ],
)
async def test_jobs_api_probe_runs_once(
    mock_client: ComfyClient, routes: dict[str, Handler], handler: Handler, expected: bool
) -> None:
    calls: list[str] = []

    def probe(request: httpx.Request) -> httpx.Response:
        calls.append(str(request.url.params))
        return handler(request)

    routes["GET /api/jobs"] = probe
    assert await mock_client.has_jobs_api() is expected
    assert await mock_client.has_jobs_api() is expected
    assert calls == ["limit=1"]


@pytest.mark.asyncio
async def test_failed_probe_is_not_cached(
    mock_client: ComfyClient, routes: dict[str, Handler]
) -> None:
    routes["GET /api/jobs"] = raw("boom", 500)
    with pytest.raises(ComfyServerError):
        await mock_client.has_jobs_api()
    routes["GET /api/jobs"] = answer({"jobs": []})
    assert await mock_client.has_jobs_api()


@pytest.mark.asyncio
async def test_hostile_cancel_answer(mock_client: ComfyClient, routes: dict[str, Handler]) -> None:
    routes["GET /api/jobs"] = answer({"jobs": []})
    routes["POST /api/jobs/p/cancel"] = answer({"cancelled": "yes"})
    with pytest.raises(ComfyProtocolError, match="POST /api/jobs/p/cancel"):
        await mock_client.cancel("p")


@pytest.mark.asyncio
async def test_unknown_job_status_is_a_protocol_error(
    mock_client: ComfyClient, routes: dict[str, Handler]
) -> None:
    routes["GET /api/jobs"] = answer({"jobs": []})
    routes["GET /api/jobs/p"] = answer({"id": "p", "status": "teleported"})
    with pytest.raises(ComfyProtocolError, match=r"job\.status"):
        await mock_client.lookup("p")


# --- downloads ------------------------------------------------------------------------------------


class Chunks(httpx.AsyncByteStream):
    """A body of ``count`` chunks without a Content-Length."""

    def __init__(self, chunk: bytes, count: int) -> None:
        self.chunk, self.count = chunk, count

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for _ in range(self.count):
            yield self.chunk


@pytest.mark.asyncio
async def test_download_writes_exactly_the_destination(
    mock_client: ComfyClient, routes: dict[str, Handler], tmp_path: Path
) -> None:
    queries: list[dict[str, str]] = []

    def view(request: httpx.Request) -> httpx.Response:
        queries.append(dict(request.url.params))
        return httpx.Response(200, content=PNG)

    routes["GET /view"] = view
    dest = tmp_path / "job_0001.png"
    image = ImageRef("../../escape.png", "../..", "output")
    assert await mock_client.download(image, dest) == dest
    assert dest.read_bytes() == PNG
    assert names_in(tmp_path) == ["job_0001.png"]
    assert queries == [{"filename": "../../escape.png", "subfolder": "../..", "type": "output"}]


@pytest.mark.asyncio
@pytest.mark.parametrize("declared", [True, False])
async def test_download_over_the_limit_keeps_nothing(
    mock_client: ComfyClient, routes: dict[str, Handler], tmp_path: Path, declared: bool
) -> None:
    if declared:
        routes["GET /view"] = lambda request: httpx.Response(200, content=b"x" * 5000)
    else:
        routes["GET /view"] = lambda request: httpx.Response(200, stream=Chunks(b"x" * 1000, 50))
    dest = tmp_path / "out.png"
    with pytest.raises(ComfyOutputTooLarge, match="GET /view") as caught:
        await mock_client.download(ImageRef("a.png"), dest, max_bytes=4096)
    assert caught.value.limit == 4096
    assert names_in(tmp_path) == []


@pytest.mark.asyncio
async def test_download_never_replaces_an_existing_file(
    mock_client: ComfyClient, routes: dict[str, Handler], tmp_path: Path
) -> None:
    routes["GET /view"] = lambda request: httpx.Response(200, stream=Chunks(b"ab", 3))
    dest = tmp_path / "out.png"
    dest.write_bytes(b"old")
    (tmp_path / "out-2.png").write_bytes(b"older")
    (tmp_path / "out-3.png").mkdir()
    written = await mock_client.download(ImageRef("a.png"), dest)
    assert written == tmp_path / "out-4.png"
    assert written.read_bytes() == b"ababab"
    assert dest.read_bytes() == b"old"
    assert (tmp_path / "out-2.png").read_bytes() == b"older"
    assert names_in(tmp_path) == ["out-2.png", "out-3.png", "out-4.png", "out.png"]


@pytest.mark.asyncio
async def test_download_of_the_same_bytes_again_reuses_the_file(
    mock_client: ComfyClient, routes: dict[str, Handler], tmp_path: Path
) -> None:
    routes["GET /view"] = lambda request: httpx.Response(200, content=PNG)
    dest = tmp_path / "out.png"
    dest.write_bytes(PNG[:-1] + b"y")
    first = await mock_client.download(ImageRef("a.png"), dest)
    assert first == tmp_path / "out-2.png"
    assert await mock_client.download(ImageRef("a.png"), dest) == first
    assert names_in(tmp_path) == ["out-2.png", "out.png"]


@pytest.mark.asyncio
async def test_download_without_hard_links_still_never_replaces(
    mock_client: ComfyClient,
    routes: dict[str, Handler],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """FAT drives and some network shares refuse hard links (cannot be mounted here)."""

    def refuse(source: object, target: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr("core.files.os.link", refuse)
    routes["GET /view"] = lambda request: httpx.Response(200, content=PNG)
    dest = tmp_path / "out.png"
    dest.write_bytes(b"old")
    assert await mock_client.download(ImageRef("a.png"), dest) == tmp_path / "out-2.png"
    assert await mock_client.download(ImageRef("a.png"), dest) == tmp_path / "out-2.png"
    assert dest.read_bytes() == b"old"
    assert (tmp_path / "out-2.png").read_bytes() == PNG
    assert names_in(tmp_path) == ["out-2.png", "out.png"]


@pytest.mark.asyncio
@pytest.mark.parametrize("holder", ["folder", "link", "dangling link", "link to a same file"])
async def test_anything_but_a_plain_file_at_the_name_counts_as_taken(
    mock_client: ComfyClient, routes: dict[str, Handler], tmp_path: Path, holder: str
) -> None:
    """Nothing is written through a link or into a folder at the picture's name, and the
    download neither fails nor reuses what the link points at: it takes the next name."""
    routes["GET /view"] = lambda request: httpx.Response(200, content=PNG)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    dest = tmp_path / "out" / "a.png"
    dest.parent.mkdir()
    if holder == "folder":
        dest.mkdir()
    elif holder == "link":
        dest.symlink_to(elsewhere / "target.png")
        (elsewhere / "target.png").write_bytes(b"theirs")
    elif holder == "dangling link":
        dest.symlink_to(elsewhere / "nothing.png")
    else:
        (elsewhere / "same.png").write_bytes(PNG)
        dest.symlink_to(elsewhere / "same.png")
    assert await mock_client.download(ImageRef("a.png"), dest) == dest.with_name("a-2.png")
    assert dest.with_name("a-2.png").read_bytes() == PNG
    assert names_in(dest.parent) == ["a-2.png", "a.png"]
    assert sorted(p.name for p in elsewhere.iterdir()) in ([], ["same.png"], ["target.png"])
    assert all(p.read_bytes() != PNG or p.name == "same.png" for p in elsewhere.iterdir())


@pytest.mark.asyncio
async def test_download_errors(
    mock_client: ComfyClient, routes: dict[str, Handler], tmp_path: Path
) -> None:
    with pytest.raises(ComfyNotFound, match="GET /view"):
        await mock_client.download(ImageRef("missing.png"), tmp_path / "a.png")
    routes["GET /view"] = lambda request: httpx.Response(
        200, content=PNG, headers={"Content-Length": "lots"}
    )
    with pytest.raises(ComfyProtocolError, match="Content-Length"):
        await mock_client.download(ImageRef("a.png"), tmp_path / "b.png")
    assert names_in(tmp_path) == []


# --- auth and addresses -----------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("auth", "header"),
    [
        (BearerAuth("s3cret"), "Bearer s3cret"),
        (BasicAuth("ann", "pw"), "Basic YW5uOnB3"),
    ],
)
async def test_auth_header_on_every_request(auth: BearerAuth | BasicAuth, header: str) -> None:
    seen: list[str | None] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers.get("authorization"))
        return httpx.Response(200, json={"queue_running": [], "queue_pending": []})

    async with ComfyClient(
        "https://render.lan:8443", auth=auth, transport=httpx.MockTransport(handle)
    ) as client:
        await client.queue()
        listener = client.listener()
        await listener.aclose()
    assert seen == [header]
    assert "s3cret" not in repr(auth)
    assert "pw'" not in repr(auth)
    assert listener.url.startswith("wss://render.lan:8443/ws?clientId=")


@pytest.mark.asyncio
async def test_listener_url_keeps_a_path_prefix() -> None:
    async with ComfyClient("http://127.0.0.1:8188/comfy/", client_id="me") as client:
        listener = client.listener()
        await listener.aclose()
    assert listener.url == "ws://127.0.0.1:8188/comfy/ws?clientId=me"


@pytest.mark.asyncio
async def test_every_route_keeps_a_path_prefix(tmp_path: Path) -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        if request.url.path.endswith("/view"):
            return httpx.Response(200, content=PNG)
        if request.url.path.endswith("/prompt"):
            return httpx.Response(200, json={"prompt_id": "p1", "number": 1, "node_errors": {}})
        if request.url.path.endswith("/queue"):
            return httpx.Response(200, json={"queue_running": [], "queue_pending": []})
        return httpx.Response(200, json={})

    transport = httpx.MockTransport(handler)
    async with ComfyClient("http://comfy.test/sub/", transport=transport) as client:
        await client.submit({}, "p1")
        await client.queue()
        await client.download(ImageRef("a b.png", "x/y", "output"), tmp_path / "a.png")
        assert await client.history("p1") is None
    assert seen == [
        "http://comfy.test/sub/prompt",
        "http://comfy.test/sub/queue",
        "http://comfy.test/sub/view?filename=a+b.png&subfolder=x%2Fy&type=output",
        "http://comfy.test/sub/history/p1",
    ]


def test_refuses_a_non_http_address() -> None:
    with pytest.raises(ValueError, match="http"):
        ComfyClient("ftp://127.0.0.1")


def test_tls_verification_is_on_unless_turned_off() -> None:
    import ssl

    from core.comfy.auth import ssl_context

    assert ssl_context(True).verify_mode == ssl.CERT_REQUIRED
    assert ssl_context(True).check_hostname
    assert ssl_context(False).verify_mode == ssl.CERT_NONE
    mine = ssl.create_default_context()
    assert ssl_context(mine) is mine
    with pytest.raises(FileNotFoundError):
        ssl_context("/nonexistent/ca.pem")
