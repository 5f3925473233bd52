"""The simulator's POST /upload/image (simulator/uploads.py) against the recordings of ComfyUI
0.3.64's: the same statuses and bodies for the same requests, in the same order; the hash
check, the renaming, overwrite, escapes, the size limit; and the /_sim/uploads count."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from simulator import Simulator
from tests.simulator.sim_shapes import diff, shape

# Recorded apart from the 31 exchanges test_contract.py replays (not played by record_comfyui.py).
RECORDINGS = Path(__file__).resolve().parents[1] / "data" / "recordings" / "uploads"
MakeSimulator = Callable[..., Awaitable[Simulator]]

# The recorded exchanges in the order they were played (each depends on the ones before).
RECORDED_ORDER = (
    "upload_image_new",
    "upload_image_same_bytes",
    "upload_image_clash_renamed",
    "upload_image_overwrite",
    "upload_image_not_an_image",
    "upload_image_bad_type",
)


def recording(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((RECORDINGS / f"{name}.json").read_text())
    return data


def picture(fill: int, size: int) -> bytes:
    """Bytes of ``size`` starting like a PNG; ``fill`` makes different bytes of the same size."""
    return (b"\x89PNG\r\n\x1a\n" + bytes([fill]) * size)[:size]


def multipart(parts: list[tuple[str, str | None, bytes]]) -> tuple[bytes, str]:
    """A multipart/form-data body written by hand (name, filename or None, value), so a test
    sends the file name it means (aiohttp's FormData escapes a ``/`` in it)."""
    boundary = "batchline-test-boundary"
    body = b""
    for name, filename, value in parts:
        disposition = f'form-data; name="{name}"'
        if filename is not None:
            disposition += f'; filename="{filename}"'
        head = f"--{boundary}\r\nContent-Disposition: {disposition}\r\n\r\n"
        body += head.encode() + value + b"\r\n"
    return body + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


async def upload(
    session: aiohttp.ClientSession,
    sim: Simulator,
    data: bytes | None,
    filename: str = "pic.png",
    path: str = "/upload/image",
    **fields: str,
) -> tuple[int, Any]:
    parts = [("image", filename, data)] if data is not None else []
    parts += [(key, None, value.encode()) for key, value in fields.items()]
    body, content_type = multipart(parts)
    headers = {"Content-Type": content_type}
    async with session.post(sim.url + path, data=body, headers=headers) as response:
        text = await response.text()
        try:
            return response.status, json.loads(text)
        except ValueError:
            return response.status, text


@pytest.mark.asyncio
async def test_the_recorded_upload_exchanges_come_out_the_same(simulator: Simulator) -> None:
    """Played in the recorded order with bytes of the recorded sizes (the clash with other
    bytes, the rest with the first ones): every status and body as ComfyUI's, names too."""
    bytes_of = {"upload_image_clash_renamed": 2, "upload_image_not_an_image": 3}
    async with aiohttp.ClientSession() as session:
        for name in RECORDED_ORDER:
            request, recorded = recording(name)["request"], recording(name)["response"]
            data = picture(bytes_of.get(name, 1), request["bytes"])
            status, body = await upload(
                session, simulator, data, request["filename"], **request["fields"]
            )
            assert status == recorded["status"], name
            assert diff(shape(recorded["body"]), shape(body)) == [], name
            assert body == recorded["body"], name
    folder = simulator.input_dir / "batchline"
    assert sorted(p.name for p in folder.iterdir()) == [
        "notes.png",
        "rec-85f3af (1).png",
        "rec-85f3af.png",
    ]
    assert (folder / "rec-85f3af (1).png").read_bytes() == picture(2, 155)
    assert simulator.upload_stats()["uploads"] == len(RECORDED_ORDER)


@pytest.mark.asyncio
async def test_same_bytes_write_nothing_and_clashes_count_up(simulator: Simulator) -> None:
    async with aiohttp.ClientSession() as session:
        names = [
            (await upload(session, simulator, picture(fill, 40), type="input"))[1]["name"]
            for fill in (1, 2, 3, 2, 1)
        ]
        stored = simulator.input_dir / "pic.png"
        before = stored.stat().st_mtime_ns
        await upload(session, simulator, picture(1, 40), type="input")
    assert names == ["pic.png", "pic (1).png", "pic (2).png", "pic (1).png", "pic.png"]
    assert stored.stat().st_mtime_ns == before, "the same bytes are not written again"


@pytest.mark.asyncio
async def test_overwrite_true_or_1_replaces_anything_else_renames(simulator: Simulator) -> None:
    stored = simulator.input_dir / "pic.png"
    async with aiohttp.ClientSession() as session:
        await upload(session, simulator, picture(1, 40))
        for flag, fill, expected in (("1", 2, "pic.png"), ("yes", 3, "pic (1).png")):
            _, body = await upload(session, simulator, picture(fill, 40), overwrite=flag)
            assert body["name"] == expected, flag
    assert stored.read_bytes() == picture(2, 40)


@pytest.mark.asyncio
async def test_type_is_input_by_default_and_temp_or_output_go_there(
    simulator: Simulator,
) -> None:
    async with aiohttp.ClientSession() as session:
        assert (await upload(session, simulator, picture(1, 40)))[1]["type"] == "input"
        _, body = await upload(session, simulator, picture(1, 40), type="output", subfolder="o")
    assert body == {"name": "pic.png", "subfolder": "o", "type": "output"}
    assert (simulator.output_dir / "o" / "pic.png").is_file()
    assert (simulator.input_dir / "pic.png").is_file()


@pytest.mark.asyncio
async def test_escapes_and_missing_pictures_are_400_a_bad_type_500(simulator: Simulator) -> None:
    async with aiohttp.ClientSession() as session:
        cases: list[tuple[dict[str, Any], int]] = [
            ({"filename": "../x.png"}, 400),
            ({"filename": "x.png", "subfolder": "../../up"}, 400),
            ({"filename": "x.png", "subfolder": "/etc"}, 400),
            ({"filename": "x.png", "type": "models"}, 500),
        ]
        for options, expected in cases:
            fields = {k: v for k, v in options.items() if k != "filename"}
            status, _ = await upload(session, simulator, b"x", options["filename"], **fields)
            assert status == expected, options
        assert (await upload(session, simulator, None, type="input"))[0] == 400
        # A plain text field named image is no file: ComfyUI's handler raises.
        assert (await upload(session, simulator, None, image="not a file"))[0] == 500
    assert [p.name for p in simulator.input_dir.rglob("*")] == ["example.png"]
    assert not (simulator.input_dir.parent / "up").exists()


@pytest.mark.asyncio
async def test_a_body_over_max_upload_size_is_413_and_nothing_is_kept(
    make_simulator: MakeSimulator,
) -> None:
    simulator = await make_simulator(max_upload_size=10_000)
    async with aiohttp.ClientSession() as session:
        status, body = await upload(session, simulator, picture(1, 20_000), "big.png")
        assert status == 413
        assert "Maximum request body size 10000 exceeded" in body
        assert (await upload(session, simulator, picture(1, 5_000), "fits.png"))[0] == 200
    assert sorted(p.name for p in simulator.input_dir.iterdir()) == ["example.png", "fits.png"]


@pytest.mark.asyncio
async def test_the_api_prefix_takes_uploads_too_and_sim_uploads_counts_each(
    simulator: Simulator,
) -> None:
    async with aiohttp.ClientSession() as session:
        path = "/api/upload/image"
        status, _ = await upload(
            session, simulator, picture(1, 40), "a.png", path, subfolder="batchline"
        )
        assert status == 200
        await upload(session, simulator, picture(1, 40), "a.png", subfolder="batchline")
        await upload(session, simulator, picture(1, 40), "b.png")
        async with session.get(simulator.url + "/_sim/uploads") as response:
            counted = await response.json()
    assert counted == {"uploads": 3, "names": {"batchline/a.png": 2, "b.png": 1}}
    assert simulator.stats()["uploads"] == 3


@pytest.mark.asyncio
async def test_a_token_server_refuses_an_upload_without_it(make_simulator: MakeSimulator) -> None:
    simulator = await make_simulator(token="secret")
    async with aiohttp.ClientSession() as session:
        assert (await upload(session, simulator, picture(1, 40)))[0] == 401
    assert [p.name for p in simulator.input_dir.iterdir()] == ["example.png"]
