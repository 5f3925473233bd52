"""ComfyClient.upload_image and has_input (core/comfy/upload.py): against the simulator on
loopback (ComfyUI 0.3.64's /upload/image), and a hostile server for answers that trickle or
flood."""

from __future__ import annotations

import asyncio
import io
import time
from collections.abc import Awaitable, Callable

import pytest
from aiohttp import web
from PIL import Image

from core.comfy import ComfyClient
from core.comfy.upload import MAX_UPLOAD_ANSWER_BYTES, UploadedImage, parse_upload
from core.errors import (
    ComfyAnswerTooLarge,
    ComfyAuthError,
    ComfyConnectionError,
    ComfyProtocolError,
    ComfyRejected,
    ComfyServerError,
    ComfyTimeout,
    ComfyUploadRefused,
)
from simulator import Simulator
from tests.core.comfy.conftest import HANG_S, SOCKET_SLACK
from tests.core.hostile import GB, HostileServer, answer_json, garbage, huge, trickle

Connect = Callable[..., ComfyClient]
MakeSimulator = Callable[..., Awaitable[Simulator]]


def png(color: tuple[int, int, int], size: int = 8) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (size, size), color).save(buffer, "PNG")
    return buffer.getvalue()


RED, GREEN = png((255, 0, 0)), png((0, 255, 0))


def test_the_value_is_what_load_image_takes() -> None:
    assert UploadedImage("a.png", "batchline", "input").value == "batchline/a.png"
    assert UploadedImage("a.png", "", "input").value == "a.png"


def test_an_answer_of_another_shape_is_a_protocol_error() -> None:
    route = "POST /upload/image"
    assert parse_upload({"name": "a.png", "subfolder": "", "type": "input"}, route).name == "a.png"
    for body, words in (
        ([], "body: expected an object, got list"),
        ({"subfolder": "", "type": "input"}, "body: missing key 'name'"),
        ({"name": "", "subfolder": "", "type": "input"}, "name: expected a file name"),
        ({"name": "a.png", "subfolder": None, "type": "input"}, "subfolder: expected a string"),
    ):
        with pytest.raises(ComfyProtocolError, match=f"^{route}: {words}"):
            parse_upload(body, route)


@pytest.mark.asyncio
async def test_an_upload_lands_in_the_input_folder_under_the_name_returned(
    simulator: Simulator, connect: Connect
) -> None:
    client = connect(simulator.url)
    uploaded = await client.upload_image(RED, "pic.png", subfolder="batchline")
    assert uploaded == UploadedImage("pic.png", "batchline", "input")
    assert (simulator.input_dir / "batchline" / "pic.png").read_bytes() == RED
    assert await client.has_input("pic.png", "batchline")
    assert not await client.has_input("pic.png")  # not at the top
    assert not await client.has_input("other.png", "batchline")


@pytest.mark.asyncio
async def test_the_same_bytes_get_the_same_name_and_other_bytes_a_new_one(
    simulator: Simulator, connect: Connect
) -> None:
    client = connect(simulator.url)
    first = await client.upload_image(RED, "pic.png", subfolder="batchline")
    again = await client.upload_image(RED, "pic.png", subfolder="batchline")
    clash = await client.upload_image(GREEN, "pic.png", subfolder="batchline")
    assert (first.value, again.value, clash.value) == (
        "batchline/pic.png",
        "batchline/pic.png",
        "batchline/pic (1).png",
    )
    folder = simulator.input_dir / "batchline"
    assert sorted(p.name for p in folder.iterdir()) == ["pic (1).png", "pic.png"]
    assert (folder / "pic.png").read_bytes() == RED, "never overwritten without asking"
    assert (folder / "pic (1).png").read_bytes() == GREEN


@pytest.mark.asyncio
async def test_overwrite_is_sent_only_when_asked_and_replaces(
    simulator: Simulator, connect: Connect
) -> None:
    client = connect(simulator.url)
    await client.upload_image(RED, "pic.png")
    replaced = await client.upload_image(GREEN, "pic.png", overwrite=True)
    assert replaced.value == "pic.png"
    assert (simulator.input_dir / "pic.png").read_bytes() == GREEN


@pytest.mark.asyncio
async def test_a_path_escape_is_refused_with_the_status_and_the_file(
    simulator: Simulator, connect: Connect
) -> None:
    client = connect(simulator.url)
    for filename, subfolder in (("../up.png", ""), ("up.png", "../..")):
        with pytest.raises(ComfyUploadRefused) as caught:
            await client.upload_image(RED, filename, subfolder=subfolder)
        assert caught.value.status == 400
        assert str(caught.value) == (
            "POST /upload/image: HTTP 400: the server refused the file name or subfolder "
            f"({filename!r})"
        )
        assert isinstance(caught.value, ComfyRejected)
        assert "\n" not in str(caught.value)
    assert not list(simulator.input_dir.parent.glob("up.png"))


@pytest.mark.asyncio
async def test_a_picture_over_the_servers_limit_is_refused_413(
    make_simulator: MakeSimulator, connect: Connect
) -> None:
    simulator = await make_simulator(max_upload_size=64 * 1024)
    client = connect(simulator.url)
    with pytest.raises(ComfyUploadRefused) as caught:
        await client.upload_image(b"\x89PNG" + bytes(100 * 1024), "big.png")
    assert caught.value.status == 413
    assert "the picture is larger than the server's upload limit ('big.png')" in str(caught.value)
    assert not (simulator.input_dir / "big.png").exists()
    assert (await client.upload_image(RED, "small.png")).name == "small.png"


@pytest.mark.asyncio
async def test_an_empty_name_is_refused_before_anything_is_sent(
    simulator: Simulator, connect: Connect
) -> None:
    client = connect(simulator.url)
    with pytest.raises(ValueError, match="needs a file name"):
        await client.upload_image(RED, "")
    with pytest.raises(ValueError, match="needs a name"):
        await client.has_input("")
    assert simulator.upload_stats()["uploads"] == 0


@pytest.mark.asyncio
async def test_a_protected_server_wants_the_token_for_both(
    make_simulator: MakeSimulator, connect: Connect
) -> None:
    simulator = await make_simulator(token="secret")
    stranger = connect(simulator.url)
    with pytest.raises(ComfyAuthError):
        await stranger.upload_image(RED, "pic.png")
    with pytest.raises(ComfyAuthError):
        await stranger.has_input("pic.png")


@pytest.mark.asyncio
async def test_a_413_from_the_upload_is_a_refusal_a_500_or_503_stays_transient(
    hostile: HostileServer, connect: Connect
) -> None:
    async def status(code: int) -> web.Response:
        return web.Response(status=code, text=f"{code} broken")

    client = connect(hostile.url)
    hostile.behaviours["POST /upload/image"] = lambda s, r, route: status(413)
    with pytest.raises(ComfyUploadRefused, match=r"HTTP 413: .*\('pic.png'\): 413 broken$"):
        await client.upload_image(RED, "pic.png")
    for code in (500, 503):
        hostile.behaviours["POST /upload/image"] = lambda s, r, route, code=code: status(code)
        with pytest.raises(ComfyServerError, match=f"HTTP {code}"):
            await client.upload_image(RED, "pic.png")


@pytest.mark.asyncio
async def test_a_huge_answer_stops_at_the_uploads_small_limit(
    hostile: HostileServer, connect: Connect
) -> None:
    route = "POST /upload/image"
    hostile.behaviours[route] = huge(GB)
    with pytest.raises(ComfyAnswerTooLarge) as caught:
        await connect(hostile.url).upload_image(RED, "pic.png")
    assert caught.value.limit == MAX_UPLOAD_ANSWER_BYTES
    assert hostile.sent[route] < MAX_UPLOAD_ANSWER_BYTES + SOCKET_SLACK


@pytest.mark.asyncio
async def test_a_trickling_answer_ends_at_the_download_deadline(
    hostile: HostileServer, connect: Connect
) -> None:
    """Uploads carry pictures: they get the download deadline, and it ends a trickle."""
    route = "POST /upload/image"
    hostile.behaviours[route] = trickle(0.05)
    client = connect(hostile.url, deadline=30.0, download_deadline=0.5)
    started = time.monotonic()
    async with asyncio.timeout(HANG_S):
        with pytest.raises(ComfyTimeout, match=r"within 0\.5 s \(the server is stuck\)"):
            await client.upload_image(RED, "pic.png")
    assert time.monotonic() - started >= 0.5
    assert hostile.sent[route] > 2


@pytest.mark.asyncio
async def test_garbage_or_a_wrong_shape_is_a_protocol_error(
    hostile: HostileServer, connect: Connect
) -> None:
    route = "POST /upload/image"
    client = connect(hostile.url)
    hostile.behaviours[route] = garbage()
    with pytest.raises(ComfyProtocolError, match=f"^{route}: body is not JSON"):
        await client.upload_image(RED, "pic.png")
    hostile.behaviours[route] = answer_json({"name": 3, "subfolder": "", "type": "input"})
    with pytest.raises(ComfyProtocolError, match=f"^{route}: name: expected a string, got int"):
        await client.upload_image(RED, "pic.png")


@pytest.mark.asyncio
async def test_has_input_raises_on_an_answer_but_200_or_404(
    simulator: Simulator, connect: Connect
) -> None:
    client = connect(simulator.url)
    with pytest.raises(ComfyAuthError, match="HTTP 403"):  # ComfyUI's answer to an escape
        await client.has_input("pic.png", "../..")


@pytest.mark.asyncio
async def test_the_simulators_faults_on_the_upload_route_reach_the_client_as_errors(
    make_simulator: MakeSimulator, connect: Connect
) -> None:
    """A dropped connection is transient (the upload may have landed); a trickled answer ends
    at the deadline; nothing hangs."""
    route = ["POST /upload/image"]
    dropping = await make_simulator(faults={"drop_rate": 1.0, "routes": route})
    with pytest.raises(ComfyConnectionError):
        await connect(dropping.url).upload_image(RED, "pic.png")
    trickling = await make_simulator(faults={"trickle_rate": 1.0, "routes": route})
    client = connect(trickling.url, download_deadline=0.5)
    async with asyncio.timeout(HANG_S):
        with pytest.raises(ComfyTimeout):
            await client.upload_image(RED, "pic.png")
    assert (trickling.input_dir / "pic.png").read_bytes() == RED, "stored before the answer"
    assert await client.has_input("pic.png"), "HEAD /view is not faulted"
