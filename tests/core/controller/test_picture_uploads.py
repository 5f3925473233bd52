"""A job's pictures put on one server before its attempt: uploaded once (overwrite off, the
name the server returned kept in the ledger), looked up once per connection, uploaded again to
a server that lost them; refusals named. Against a real simulator, a real client and a real
ledger."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest
import pytest_asyncio

from core.comfy import ComfyClient
from core.controller.picture_uploads import PictureUploads
from core.controller.server_state import ServerState
from core.errors import ComfyUnreachable, ExecutionFailure, NodeError
from core.inputs import UPLOAD_SUBFOLDER, PictureRef, PictureStore
from core.ledger import Ledger
from simulator import Simulator
from tests.core.comfy.test_listener import free_port
from tests.core.conftest import MakeSimulator
from tests.core.inputs.pictures import make_png

pytestmark = pytest.mark.asyncio


@pytest_asyncio.fixture
async def client(simulator: Simulator) -> AsyncIterator[ComfyClient]:
    async with ComfyClient(simulator.url) as opened:
        yield opened


def _uploads(simulator: Simulator) -> int:
    return int(simulator.upload_stats()["uploads"])


def _add(ledger: Ledger, tmp_path: Path, name: str, shade: int) -> PictureRef:
    return PictureStore.of(ledger).add(make_png(tmp_path / "renders" / name, shade=shade))


def _uploads_for(ledger: Ledger, client: ComfyClient) -> tuple[PictureUploads, ServerState]:
    server = ServerState.of(ledger, client.base_url)
    return PictureUploads(ledger, client, server), server


async def test_a_picture_goes_up_once_under_its_content_name_and_is_kept_in_the_ledger(
    ledger: Ledger, simulator: Simulator, client: ComfyClient, tmp_path: Path
) -> None:
    fox = _add(ledger, tmp_path, "fox.png", 1)
    uploads, server = _uploads_for(ledger, client)
    ready = await uploads.ready({"1.image": fox.to_param(), "5.image": fox.to_param(), "2.x": 3})
    value = f"{UPLOAD_SUBFOLDER}/{fox.server_name}"
    assert ready.values == {fox.sha256: value}
    assert ready.pictures == {"1.image": fox, "5.image": fox}
    assert not ready.refused
    stored = simulator.input_dir / UPLOAD_SUBFOLDER / fox.server_name
    assert hashlib.sha256(stored.read_bytes()).hexdigest() == fox.sha256
    assert _uploads(simulator) == 1, "two inputs of one picture: one upload"
    assert ledger.server_pictures.get(server.url, fox.sha256) is None, "held with the tick's"
    server.held.commit()
    assert ledger.server_pictures.get(server.url, fox.sha256) == value
    assert (await uploads.ready({"1.image": fox.to_param()})).values == {fox.sha256: value}
    assert _uploads(simulator) == 1
    assert (await uploads.ready({"2.x": 3})).values == {}


async def test_a_name_held_by_other_bytes_is_never_overwritten_the_servers_name_is_used(
    ledger: Ledger, simulator: Simulator, client: ComfyClient, tmp_path: Path
) -> None:
    fox = _add(ledger, tmp_path, "fox.png", 1)
    theirs = simulator.input_dir / UPLOAD_SUBFOLDER / fox.server_name
    theirs.parent.mkdir(parents=True, exist_ok=True)
    theirs.write_bytes(b"someone else's file")
    uploads, _ = _uploads_for(ledger, client)
    ready = await uploads.ready({"1.image": fox.to_param()})
    renamed = fox.server_name.replace(".png", " (1).png")
    assert ready.values == {fox.sha256: f"{UPLOAD_SUBFOLDER}/{renamed}"}
    assert theirs.read_bytes() == b"someone else's file"
    assert (theirs.parent / renamed).read_bytes() == PictureStore.of(ledger).read(fox)


async def test_after_a_reconnect_a_known_picture_is_looked_up_and_sent_only_if_gone(
    ledger: Ledger, simulator: Simulator, client: ComfyClient, tmp_path: Path
) -> None:
    fox = _add(ledger, tmp_path, "fox.png", 1)
    uploads, server = _uploads_for(ledger, client)
    await uploads.ready({"1.image": fox.to_param()})
    server.held.commit()
    server.may_have_restarted()  # it kept its input folder: looked up, not sent
    await uploads.ready({"1.image": fox.to_param()})
    assert _uploads(simulator) == 1
    simulator.wipe_input()
    await uploads.ready({"1.image": fox.to_param()})
    assert _uploads(simulator) == 1, "seen in this connection: not looked up again"
    server.may_have_restarted()
    ready = await uploads.ready({"1.image": fox.to_param()})
    assert _uploads(simulator) == 2
    assert (simulator.input_dir / ready.values[fox.sha256]).is_file()
    # A new controller (nothing seen yet) reads the name from the ledger and looks it up.
    again, _ = _uploads_for(ledger, client)
    await again.ready({"1.image": fox.to_param()})
    assert _uploads(simulator) == 2


async def test_a_picture_forgotten_after_a_refusal_is_looked_up_again(
    ledger: Ledger, simulator: Simulator, client: ComfyClient, tmp_path: Path
) -> None:
    fox, owl = _add(ledger, tmp_path, "fox.png", 1), _add(ledger, tmp_path, "owl.png", 2)
    uploads, server = _uploads_for(ledger, client)
    ready = await uploads.ready({"1.image": fox.to_param(), "2.image": owl.to_param()})
    server.held.commit()
    said = NodeError(
        "1",
        "LoadImage",
        "custom_validation_failed",
        "Custom validation failed for node",
        f"image - Invalid image file: {ready.values[fox.sha256]}",
        "image",
    )
    other = NodeError("2", "LoadImage", "value_not_in_list", "Value not in list", "", "image")
    assert uploads.missing(ready.pictures, (said, other)) == [fox.sha256]
    simulator.wipe_input()
    uploads.forget(fox.sha256)
    await uploads.ready({"1.image": fox.to_param(), "2.image": owl.to_param()})
    assert _uploads(simulator) == 3, "the forgotten one sent again, the other still seen"


async def test_an_upload_the_server_refuses_is_one_line_naming_the_picture(
    ledger: Ledger, make_simulator: MakeSimulator, tmp_path: Path
) -> None:
    simulator = await make_simulator(max_upload_size=200)
    big = PictureStore.of(ledger).add(make_png(tmp_path / "big render.png", size=(64, 64)))
    async with ComfyClient(simulator.url) as client:
        uploads, _ = _uploads_for(ledger, client)
        ready = await uploads.ready({"1.image": big.to_param()})
        assert ready.refused_input == "1.image"
        assert ready.refused.startswith(f"{simulator.url} refused the picture big render.png: ")
        assert "larger than the server's upload limit" in ready.refused
        assert "\n" not in ready.refused
        again = await uploads.ready({"3.image": big.to_param()})
        assert again.refused == ready.refused
    assert _uploads(simulator) == 1, "refused once: not sent again in this connection"


async def test_a_kept_copy_gone_is_refused_naming_the_picture(
    ledger: Ledger, simulator: Simulator, client: ComfyClient, tmp_path: Path
) -> None:
    fox = _add(ledger, tmp_path, "fox.png", 1)
    PictureStore.of(ledger).path_of(fox).unlink()
    uploads, _ = _uploads_for(ledger, client)
    ready = await uploads.ready({"1.image": fox.to_param()})
    assert "the copy of fox.png Batchline kept" in ready.refused
    assert _uploads(simulator) == 0


async def test_a_server_that_cannot_be_reached_raises_and_nothing_is_kept(
    ledger: Ledger, tmp_path: Path
) -> None:
    fox = _add(ledger, tmp_path, "fox.png", 1)
    async with ComfyClient(f"http://127.0.0.1:{free_port()}") as client:
        uploads, server = _uploads_for(ledger, client)
        with pytest.raises(ComfyUnreachable):
            await uploads.ready({"1.image": fox.to_param()})
    server.held.commit()
    assert ledger.server_pictures.of_server(server.url) == {}


async def test_a_run_lost_its_picture_only_when_its_picture_node_found_no_file(
    ledger: Ledger, client: ComfyClient, tmp_path: Path
) -> None:
    ref = _add(ledger, tmp_path, "a.png", 10)
    other = _add(ledger, tmp_path, "b.png", 20)
    uploads, _ = _uploads_for(ledger, client)
    params = {"1.image": ref.to_param(), "5.image": other.to_param(), "2.seed": 3}
    gone = ExecutionFailure("other", "1", "LoadImage", "FileNotFoundError", "[Errno 2] ...")
    assert uploads.lost_in_run(params, gone) == [ref.sha256]
    assert uploads.lost_in_run(params, replace(gone, node_id="5")) == [other.sha256]
    assert uploads.lost_in_run(params, replace(gone, node_id="2")) == [], "not a picture node"
    assert uploads.lost_in_run(params, replace(gone, exception_type="ValueError")) == []
    assert uploads.lost_in_run(params, replace(gone, node_id=None)) == []
    assert uploads.lost_in_run({"2.seed": 3}, gone) == []
