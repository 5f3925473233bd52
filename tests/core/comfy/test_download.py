"""Downloading a picture: exactly its destination, within its limit and deadline, never over an
existing file (the same bytes again reuse it)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import httpx
import pytest

from core.comfy import (
    ComfyClient,
    ImageRef,
)
from core.comfy.bodies import MIB
from core.errors import (
    ComfyNotFound,
    ComfyOutputTooLarge,
    ComfyProtocolError,
    ComfyTimeout,
)
from tests.core.comfy.conftest import HANG_S, PNG, SOCKET_SLACK, Handler
from tests.core.hostile import GB, HostileServer, huge, trickle


def names_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


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


@pytest.mark.asyncio
async def test_a_trickling_picture_ends_at_the_download_deadline(
    hostile: HostileServer, connect: Callable[..., ComfyClient], tmp_path: Path
) -> None:
    hostile.behaviours["GET /view"] = trickle(0.05, prefix=b"\x89PNG")
    """A download has its own, longer deadline (named in the message, not ended before it)."""
    client = connect(hostile.url, deadline=0.2, download_deadline=0.6)
    started = time.monotonic()
    async with asyncio.timeout(HANG_S):
        with pytest.raises(ComfyTimeout, match=r"^GET /view: no complete answer within 0.6 s"):
            await client.download(ImageRef("a.png"), tmp_path / "a.png")
    assert time.monotonic() - started >= 0.6
    assert list(tmp_path.iterdir()) == [], "no part file left behind"


@pytest.mark.asyncio
async def test_a_huge_picture_is_still_cut_at_its_limit(
    hostile: HostileServer, connect: Callable[..., ComfyClient], tmp_path: Path
) -> None:
    hostile.behaviours["GET /view"] = huge(GB, prefix=b"\x89PNG")
    with pytest.raises(ComfyOutputTooLarge, match="output exceeds the limit of 4 MiB"):
        await connect(hostile.url).download(
            ImageRef("a.png"), tmp_path / "a.png", max_bytes=4 * MIB
        )
    assert hostile.sent["GET /view"] < 4 * MIB + SOCKET_SLACK
    assert list(tmp_path.iterdir()) == []
