"""ComfyClient's HTTP routes against the simulator on loopback."""

from __future__ import annotations

import asyncio
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
from core.simulator import Simulator

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


# --- auth ----------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_token_required(make_simulator: MakeSimulator, connect: Connect) -> None:
    simulator = await make_simulator(token="s3cret")
    with pytest.raises(ComfyAuthError, match=r"GET /queue: credentials refused \(HTTP 401"):
        await connect(simulator.url).queue()
    with pytest.raises(ComfyAuthError):
        await connect(simulator.url, auth=BearerAuth("wrong")).queue()
    assert len(await connect(simulator.url, auth=BearerAuth("s3cret")).queue()) == 0
    assert len(await connect(simulator.url, auth=BasicAuth("ann", "s3cret")).queue()) == 0


# --- faults --------------------------------------------------------------------------------------


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
