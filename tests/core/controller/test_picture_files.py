"""Pictures: written once each, never over another file, with the user's normal file mode."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.comfy import ComfyClient, HistoryEntry, new_prompt_id
from core.controller.outputs import fetch_outputs, image_refs, output_refs
from core.job_state import JobState
from core.ledger import Ledger, PresetContent
from core.presets import workflow_hash
from simulator import Simulator
from tests.core.comfy.conftest import wait_until_finished, workflow
from tests.core.controller.conftest import MakeController, queue
from tests.core.helpers import NOISE_WORKFLOW, wait_for

pytestmark = pytest.mark.asyncio


async def finished_entry(client: ComfyClient, color: int) -> HistoryEntry:
    prompt_id = new_prompt_id()
    await client.submit(workflow(color), prompt_id)
    return await wait_until_finished(client, prompt_id)


async def fetch(
    client: ComfyClient, entry: HistoryEntry, out: Path, batch: str, job: str, max_pictures: int = 8
) -> tuple[list[str], list[str]]:
    """The references a success records, then their download: (paths, notes and warnings)."""
    refs, note = output_refs(entry, max_pictures)
    fetched = await fetch_outputs(client, image_refs(refs), out, batch, job)
    return fetched.paths, [note, *fetched.warnings] if note else fetched.warnings


def outputs_of(ledger: Ledger, ids: list[str]) -> list[Path]:
    return [Path(path) for job_id in ids for path in ledger.attempts(job_id)[-1].outputs]


@pytest.fixture
def umask() -> Iterator[None]:
    previous = os.umask(0o022)
    yield
    os.umask(previous)


async def test_two_ledgers_sharing_an_output_folder_keep_every_picture(
    ledger: Ledger, simulator: Simulator, make_controller: MakeController, tmp_path: Path
) -> None:
    first_ids = queue(ledger, 2, start=1)
    await make_controller(ledger, simulator)
    await wait_for(lambda: all(ledger.job(j).state == JobState.succeeded for j in first_ids))
    first = {path: path.read_bytes() for path in outputs_of(ledger, first_ids)}
    with Ledger(tmp_path / "other") as other:
        other.presets.add("noise", PresetContent(workflow_hash(NOISE_WORKFLOW), NOISE_WORKFLOW))
        second_ids = queue(other, 2, start=100)
        assert second_ids == first_ids, "both ledgers issue the same ids on the same day"
        other_controller = await make_controller(other, simulator)
        await wait_for(lambda: all(other.job(j).state == JobState.succeeded for j in second_ids))
        second = outputs_of(other, second_ids)
        await other_controller.stop()
    assert {path: path.read_bytes() for path in first} == first, "first pictures untouched"
    assert [path.name for path in second] == [f"{job_id}_1-2.png" for job_id in second_ids]
    assert len({*first, *second}) == 4
    assert len({path.read_bytes() for path in [*first, *second]}) == 4


async def test_an_unrelated_file_is_never_replaced(simulator: Simulator, tmp_path: Path) -> None:
    taken = tmp_path / "b" / "j_1.png"
    taken.parent.mkdir()
    taken.write_bytes(b"someone else's picture")
    async with ComfyClient(simulator.url) as client:
        entry = await finished_entry(client, 3)
        paths, warnings = await fetch(client, entry, tmp_path, "b", "j")
    assert (paths, warnings) == ([str(tmp_path / "b" / "j_1-2.png")], [])
    assert taken.read_bytes() == b"someone else's picture"
    assert sorted(p.name for p in taken.parent.iterdir()) == ["j_1-2.png", "j_1.png"]


async def test_downloading_again_after_a_crash_reuses_the_identical_file(
    simulator: Simulator, tmp_path: Path
) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "j_1.png").write_bytes(b"someone else's picture")
    async with ComfyClient(simulator.url) as client:
        entry = await finished_entry(client, 4)
        first, _ = await fetch(client, entry, tmp_path, "b", "j")
        again, _ = await fetch(client, entry, tmp_path, "b", "j")
        other, _ = await fetch(client, await finished_entry(client, 5), tmp_path, "b", "j")
    assert again == first == [str(tmp_path / "b" / "j_1-2.png")]
    assert other == [str(tmp_path / "b" / "j_1-3.png")], "a different picture takes a new name"
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == [
        "j_1-2.png",
        "j_1-3.png",
        "j_1.png",
    ]


@pytest.mark.parametrize("mask", [0o002, 0o022, 0o077])
async def test_pictures_get_the_users_file_mode(
    simulator: Simulator, tmp_path: Path, umask: None, mask: int
) -> None:
    os.umask(mask)
    async with ComfyClient(simulator.url) as client:
        (path,), _ = await fetch(client, await finished_entry(client, 6), tmp_path, "b", "j")
    assert Path(path).stat().st_mode & 0o777 == 0o666 & ~mask


@pytest.mark.expect_log("core.controller.outputs")
async def test_a_job_listing_thousands_of_pictures_keeps_the_first_few(
    simulator: Simulator, tmp_path: Path
) -> None:
    async with ComfyClient(simulator.url) as client:
        (image,) = (await finished_entry(client, 3)).images
        entry = HistoryEntry("p", 1, "success", True, images=(image,) * 2000)
        paths, warnings = await fetch(client, entry, tmp_path, "b", "j", max_pictures=3)
    assert [Path(p).name for p in paths] == ["j_1.png", "j_2.png", "j_3.png"]
    assert warnings == ["1997 of its 2000 pictures left on the server (at most 3 are kept a job)"]
    assert len(list((tmp_path / "b").iterdir())) == 3
