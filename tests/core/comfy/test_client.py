"""ComfyClient's HTTP routes: against the simulator on loopback, and over httpx.MockTransport for
the bodies and failures the simulator cannot make."""

from __future__ import annotations

import asyncio
import json
import ssl
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import trustme
from aiohttp import web

from core.comfy import (
    BasicAuth,
    BearerAuth,
    ComfyClient,
    HistoryEntry,
    ImageRef,
    new_prompt_id,
)
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
from simulator import Simulator
from tests.core.comfy.conftest import PNG, Handler, answer, raw

Connect = Callable[..., ComfyClient]


EMPTY_QUEUE = {"queue_running": [], "queue_pending": []}


MakeSimulator = Callable[..., Awaitable[Simulator]]


Workflow = Callable[..., dict[str, Any]]


Finished = Callable[[ComfyClient, str], Awaitable[HistoryEntry]]


Running = Callable[[ComfyClient, str], Awaitable[None]]


def names_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.mark.asyncio
async def test_submit_run_and_download(
    simulator: Simulator,
    connect: Connect,
    make_workflow: Workflow,
    finished: Finished,
    tmp_path: Path,
) -> None:
    client = connect(simulator.url)
    prompt_id = new_prompt_id()
    result = await client.submit(make_workflow(7), prompt_id)
    assert (result.prompt_id, result.node_errors) == (prompt_id, ())
    assert isinstance(result.number, int)
    entry = await finished(client, prompt_id)
    assert entry.succeeded
    (image,) = entry.images
    assert image.node_id == "2"
    dest = tmp_path / "dl" / "job_0001.png"
    dest.parent.mkdir()
    assert await client.download(image, dest) == dest
    assert dest.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    size = dest.stat().st_size
    assert names_in(dest.parent) == ["job_0001.png"]
    with pytest.raises(ComfyOutputTooLarge):
        await client.download(image, tmp_path / "small.png", max_bytes=size - 1)
    assert not (tmp_path / "small.png").exists()
    assert simulator.execution_count(prompt_id) == 1


@pytest.mark.asyncio
async def test_download_of_a_missing_output(
    simulator: Simulator, connect: Connect, tmp_path: Path
) -> None:
    folder = tmp_path / "dl"
    folder.mkdir()
    with pytest.raises(ComfyNotFound, match="GET /view"):
        await connect(simulator.url).download(ImageRef("nope.png"), folder / "x.png")
    assert names_in(folder) == []


@pytest.mark.asyncio
async def test_submit_with_a_dropped_output_is_a_warning(
    simulator: Simulator, connect: Connect, make_workflow: Workflow, finished: Finished
) -> None:
    prompt = make_workflow(3)
    bad = make_workflow(4, width=0)
    prompt["3"], prompt["4"] = bad["1"], {**bad["2"], "inputs": {"images": ["3", 0]}}
    prompt["4"]["inputs"]["filename_prefix"] = "t/bad"
    client = connect(simulator.url)
    prompt_id = new_prompt_id()
    result = await client.submit(prompt, prompt_id)
    (error,) = result.node_errors
    assert (error.node_id, error.class_type, error.input_name) == ("3", "EmptyImage", "width")
    assert result.dropped_outputs == ("4",)
    assert (await finished(client, prompt_id)).succeeded


@pytest.mark.asyncio
async def test_rejections_name_node_and_input(
    simulator: Simulator, connect: Connect, make_workflow: Workflow
) -> None:
    client = connect(simulator.url)
    with pytest.raises(ComfyRejected) as caught:
        await client.submit(make_workflow(width=0), new_prompt_id())
    assert caught.value.error.type == "prompt_outputs_failed_validation"
    (error,) = caught.value.node_errors
    assert (error.node_id, error.class_type, error.input_name) == ("1", "EmptyImage", "width")
    with pytest.raises(ComfyRejected) as unknown:
        await client.submit({"1": {"class_type": "NoSuchNode", "inputs": {}}}, new_prompt_id())
    assert unknown.value.error.type == "invalid_prompt"
    assert (await client.queue()).pending == ()


@pytest.mark.asyncio
async def test_queue_order_delete_and_targeted_interrupt(
    make_simulator: MakeSimulator,
    connect: Connect,
    make_workflow: Workflow,
    finished: Finished,
    running: Running,
) -> None:
    simulator = await make_simulator(job_seconds=3.0)
    client = connect(simulator.url)
    ids = [new_prompt_id() for _ in range(4)]
    for color, prompt_id in enumerate(ids):
        await client.submit(make_workflow(color), prompt_id)
    await running(client, ids[0])
    snapshot = await client.queue()
    assert [item.prompt_id for item in snapshot.running] == ids[:1]
    assert [item.prompt_id for item in snapshot.pending] == ids[1:]
    assert {item.client_id for item in snapshot.pending} == {client.client_id}
    numbers = [item.number for item in snapshot.pending]
    assert numbers == sorted(numbers)

    await client.delete(ids[2], ids[0])  # the running one is untouched
    await client.interrupt(ids[1])  # pending: a no-op
    snapshot = await client.queue()
    assert [item.prompt_id for item in snapshot.pending] == [ids[1], ids[3]]
    assert snapshot.place_of(ids[0]) == "running"

    await client.interrupt(ids[0])
    entry = await finished(client, ids[0])
    assert entry.failure is not None
    assert entry.failure.kind == "interrupted"
    assert await client.history(ids[2]) is None
    assert simulator.execution_count(ids[2]) == 0


@pytest.mark.asyncio
async def test_history_of_one_prompt(
    simulator: Simulator, connect: Connect, make_workflow: Workflow, finished: Finished
) -> None:
    client = connect(simulator.url)
    ids = [new_prompt_id() for _ in range(3)]
    for color, prompt_id in enumerate(ids):
        await client.submit(make_workflow(color), prompt_id)
    await finished(client, ids[-1])
    entries = [await client.history(prompt_id) for prompt_id in ids]
    assert [entry.prompt_id if entry else None for entry in entries] == ids
    assert await client.history(new_prompt_id()) is None


@pytest.mark.asyncio
async def test_out_of_memory_in_history(
    simulator: Simulator, connect: Connect, make_workflow: Workflow, finished: Finished
) -> None:
    simulator.fail_next(1, kind="oom")
    client = connect(simulator.url)
    prompt_id = new_prompt_id()
    await client.submit(make_workflow(), prompt_id)
    entry = await finished(client, prompt_id)
    assert entry.failure is not None
    assert entry.failure.kind == "oom"
    assert not entry.completed


@pytest.mark.asyncio
async def test_system_stats_and_object_info(simulator: Simulator, connect: Connect) -> None:
    client = connect(simulator.url)
    stats = await client.system_stats()
    assert stats.comfyui_version == "0.3.64"
    assert stats.devices
    info = await client.object_info()
    assert "EmptyImage" in info
    assert "KSampler" in info


@pytest.mark.asyncio
async def test_token_required(make_simulator: MakeSimulator, connect: Connect) -> None:
    simulator = await make_simulator(token="s3cret")
    with pytest.raises(ComfyAuthError, match=r"GET /queue: credentials refused \(HTTP 401"):
        await connect(simulator.url).queue()
    with pytest.raises(ComfyAuthError):
        await connect(simulator.url, auth=BearerAuth("wrong")).queue()
    assert len(await connect(simulator.url, auth=BearerAuth("s3cret")).queue()) == 0
    assert len(await connect(simulator.url, auth=BasicAuth("ann", "s3cret")).queue()) == 0


@pytest.mark.asyncio
async def test_500_is_a_server_error(simulator: Simulator, connect: Connect) -> None:
    simulator.set_faults(error_rate=1.0, routes=["GET /queue"])
    with pytest.raises(ComfyServerError, match="GET /queue: HTTP 500") as caught:
        await connect(simulator.url).queue()
    assert caught.value.status == 500


@pytest.mark.asyncio
async def test_dropped_connection_is_a_connection_error(
    simulator: Simulator, connect: Connect, make_workflow: Workflow
) -> None:
    simulator.set_faults(drop_rate=1.0, routes=["POST /prompt"])
    client = connect(simulator.url)
    with pytest.raises(ComfyConnectionError, match="POST /prompt") as caught:
        await client.submit(make_workflow(), new_prompt_id())
    # The request went out: it may have been queued, so this is no proof that nothing was sent.
    assert not isinstance(caught.value, ComfyUnreachable), caught.value
    simulator.set_faults(drop_rate=0.0)
    assert len(await client.queue()) == 0  # the client survives the broken connection


@pytest.mark.asyncio
async def test_slow_answer_is_a_timeout(simulator: Simulator, connect: Connect) -> None:
    simulator.set_faults(delay_seconds=1.0, routes=["GET /queue"])
    client = connect(simulator.url, timeout=httpx.Timeout(0.2))
    with pytest.raises(ComfyTimeout, match="GET /queue"):
        await client.queue()


@pytest.mark.asyncio
async def test_an_answer_that_is_not_http_is_a_protocol_error(connect: Connect) -> None:
    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HELLO THERE\r\nthis is no HTTP\r\n\r\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        with pytest.raises(ComfyProtocolError, match=r"^GET /queue: ") as caught:
            await connect(f"http://127.0.0.1:{port}").queue()
    assert "\n" not in str(caught.value)


@pytest.mark.asyncio
async def test_a_proxy_from_the_environment_carries_the_requests(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[bytes] = []

    async def proxy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        asked.append((await reader.readuntil(b"\r\n\r\n")).split(b"\r\n")[0])
        body = b'{"queue_running": [], "queue_pending": []}'
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
        writer.write(b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(body), body))
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(proxy, "127.0.0.1", 0)
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    async with server, ComfyClient("http://comfy.invalid:8188") as client:
        assert len(await client.queue()) == 0
    assert asked == [b"GET http://comfy.invalid:8188/queue HTTP/1.1"]


@pytest.mark.asyncio
async def test_server_gone_is_a_connection_error(
    make_simulator: MakeSimulator, connect: Connect
) -> None:
    simulator = await make_simulator()
    client = connect(simulator.url)
    await simulator.stop()
    with pytest.raises(ComfyUnreachable, match="GET /queue: cannot connect"):
        await client.queue()


@pytest.mark.asyncio
async def test_https_is_checked_against_the_ca_bundle_given(tmp_path: Path) -> None:
    """A server behind TLS with a certificate of its own CA: trusted with that CA's bundle (or
    with checks off), refused as unreachable otherwise, before anything is sent."""
    ca = trustme.CA()
    served = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(served)
    bundle = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(bundle))

    async def queue(_: web.Request) -> web.Response:
        return web.json_response(EMPTY_QUEUE)

    app = web.Application()
    app.router.add_get("/queue", queue)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=served)
    await site.start()
    url = f"https://127.0.0.1:{runner.addresses[0][1]}"
    try:
        async with ComfyClient(url, verify=str(bundle)) as client:
            assert len(await client.queue()) == 0
        async with ComfyClient(url, verify=False) as client:
            assert len(await client.queue()) == 0
        async with ComfyClient(url) as client:
            with pytest.raises(ComfyUnreachable, match="certificate verify failed"):
                await client.queue()
    finally:
        await runner.cleanup()


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
