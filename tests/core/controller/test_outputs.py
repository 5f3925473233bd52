"""A finished prompt's pictures: their paths inside the output folder whatever the server or the
ids say; written once each, never over another file, with the user's file mode; a picture that
cannot be placed is that picture's problem; a full output folder waits for room; an output node
ComfyUI drops is a warning."""

from __future__ import annotations

import asyncio
import copy
import json
import logging
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.batch import BatchSpec, SeedPlan, queue_batch
from core.batch.prompt import expected_outputs, prompt_for
from core.comfy import ComfyClient, HistoryEntry, ImageRef, new_prompt_id
from core.controller import Connection
from core.controller.outputs import fetch_outputs, image_refs, output_path, output_refs
from core.job_state import AttemptResult, JobState, Reason
from core.ledger import Ledger, PresetContent
from core.presets import workflow_hash
from core.presets.png import read_text_chunks
from simulator import Simulator
from tests.conftest import DATA
from tests.core.comfy.conftest import wait_until_finished, workflow
from tests.core.conftest import MakeSimulator
from tests.core.controller.conftest import MakeController, queue
from tests.core.disks import fill, small_disk
from tests.core.helpers import NOISE_WORKFLOW, wait_for


@pytest.mark.asyncio
@pytest.mark.parametrize("answer", ["at once", "after the socket said it started"])
async def test_an_output_node_comfyui_drops_is_the_jobs_warning(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController, answer: str
) -> None:
    faults = {"late_answer_rate": 1.0, "late_seconds": 0.3, "routes": ["POST /prompt"]}
    simulator = await make_simulator(faults=faults if answer != "at once" else {})
    workflow = copy.deepcopy(NOISE_WORKFLOW)
    workflow["4"] = {**workflow["1"], "inputs": {**workflow["1"]["inputs"], "width": 0}}
    workflow["5"] = {"class_type": "SaveImage", "inputs": {"images": ["4", 0]}}
    workflow["5"]["inputs"]["filename_prefix"] = "bad"
    ledger.presets.add("two outputs", PresetContent(workflow_hash(workflow), workflow))
    _batch, (job_id,) = queue_batch(ledger, "two outputs", BatchSpec(seeds=SeedPlan(count=1)))
    await make_controller(ledger, simulator)
    await wait_for(lambda: ledger.job(job_id).state is JobState.succeeded)
    job = ledger.job(job_id)
    assert (job.warning or "").startswith("ComfyUI dropped output node(s) 5: ")
    assert "width" in (job.warning or "")
    (output,) = ledger.attempts(job_id)[-1].outputs  # the output node kept made its picture
    assert Path(output).is_file()


@pytest.mark.asyncio
@pytest.mark.expect_log("core.controller.outputs")
async def test_a_missing_output_is_a_warning_not_a_failure(
    simulator: Simulator, tmp_path: Path
) -> None:
    from core.comfy import ComfyClient, ImageRef
    from core.controller.outputs import fetch_outputs

    async with ComfyClient(simulator.url) as client:
        fetched = await fetch_outputs(client, [ImageRef("gone_00001_.png")], tmp_path, "b", "j")
    assert fetched.paths == []
    assert len(fetched.warnings) == 1
    assert "gone_00001_.png" in fetched.warnings[0]
    assert fetched.gone == 1


def test_layout_is_batch_folder_and_job_file(tmp_path: Path) -> None:
    path = output_path(tmp_path, "batch_1", "job_2", 3, "ComfyUI_00001_.webp")
    assert path == tmp_path.resolve() / "batch_1" / "job_2_3.webp"


def test_a_job_of_one_picture_is_named_by_its_stem_and_seed(tmp_path: Path) -> None:
    """Its source's stem and its first seed input (in key order); the stem alone when it
    varies no seed; the job's id with no picture or two different ones. A stem that is not
    a plain name stays inside the batch folder."""
    from core.controller.outputs import output_name
    from core.inputs import PictureRef

    fox = PictureRef("a" * 64, "render 003.png", "/r/render 003.png", 5).to_param()
    owl = PictureRef("b" * 64, "../../owl.png", "/r/owl.png", 5).to_param()
    assert output_name("job_1", {"1.image": fox, "7.seed": 42, "3.noise_seed": 9}) == (
        "render 003_9"
    )
    assert output_name("job_1", {"1.image": fox, "5.image": fox, "2.steps": 30}) == "render 003"
    assert output_name("job_1", {"1.image": fox, "5.image": owl, "7.seed": 1}) == "job_1"
    assert output_name("job_1", {"7.seed": 1}) == "job_1"
    name = output_name("job_1", {"1.image": owl, "7.seed": 3})
    path = output_path(tmp_path, "b", name, 1, "ComfyUI_00001_.png")
    assert path == tmp_path.resolve() / "b" / "owl_3_1.png"
    spaced = output_path(tmp_path, "b", output_name("j", {"1.image": fox}), 2, "x.png")
    assert spaced.name == "render_003_2.png"


@pytest.mark.parametrize(
    "server_name", ["../../etc/passwd", "/abs/x.png", "..\\..\\win.png", "x.exe", "", "a/b/c.PNG"]
)
def test_server_names_only_lend_a_known_suffix(tmp_path: Path, server_name: str) -> None:
    path = output_path(tmp_path, "b", "j", 1, server_name)
    assert path.parent == tmp_path.resolve() / "b"
    assert path.suffix in {".png"}


@pytest.mark.parametrize(("batch", "job"), [("..", "x"), ("../..", "../y"), ("a/../../b", ".")])
def test_hostile_ids_stay_inside(tmp_path: Path, batch: str, job: str) -> None:
    path = output_path(tmp_path, batch, job, 1, "x.png")
    assert path.is_relative_to(tmp_path.resolve())


def test_each_batch_saves_into_its_own_server_folder() -> None:
    api = {
        "9": {
            "class_type": "SaveImage",
            "inputs": {"filename_prefix": "portrait", "images": ["1", 0]},
        },
        "1": {"class_type": "EmptyImage", "inputs": {"width": 8}},
    }
    prompt = prompt_for(api, {"1.width": 16}, "batch_7")
    assert prompt["9"]["inputs"]["filename_prefix"] == "batchline/batch_7/portrait"
    assert prompt["1"]["inputs"]["width"] == 16
    assert api["9"]["inputs"]["filename_prefix"] == "portrait", "the preset is left untouched"
    assert prompt_for(api, {"1.width": 16}, "batch_7") == prompt, "rebuilt identically"


def test_an_attempt_names_its_pictures_before_it_runs() -> None:
    """Each attempt saves into a folder of its own (its prompt id), so ComfyUI numbers its
    pictures from 1 there and their names are known before it runs; a prefix with ComfyUI's
    ``%`` tokens names none beforehand."""
    api = {
        "9": {"class_type": "SaveImage", "inputs": {"filename_prefix": "a/fox", "images": []}},
        "8": {"class_type": "SaveImage", "inputs": {"filename_prefix": "%date:yyyy%/x"}},
        "7": {"class_type": "PreviewImage", "inputs": {"images": []}},
    }
    pid = "3f0e7a52-5d1c-4c8e-9a8e-0d6f5b1c2a11"
    prompt = prompt_for(api, {}, "batch_7", pid)
    assert prompt["9"]["inputs"]["filename_prefix"] == f"batchline/batch_7/{pid}/a/fox"
    assert expected_outputs(prompt, 1) == [
        ImageRef("fox_00001_.png", f"batchline/batch_7/{pid}/a", "output", "9")
    ]
    assert expected_outputs(prompt, 12)[0].filename == "fox_00012_.png"
    assert prompt_for(api, {}, "batch_7", pid) == prompt, "rebuilt identically"


@pytest.mark.asyncio
async def test_the_client_tells_whether_the_server_has_an_output(
    make_simulator: MakeSimulator,
) -> None:
    simulator = await make_simulator()
    kept = simulator.output_dir / "batchline" / "b" / "fox_00001_.png"
    kept.parent.mkdir(parents=True)
    kept.write_bytes(b"png")
    async with ComfyClient(simulator.url) as client:
        assert await client.has_output(ImageRef("fox_00001_.png", "batchline/b"))
        assert not await client.has_output(ImageRef("fox_00002_.png", "batchline/b"))


def test_saved_images_are_kept_and_previews_only_when_nothing_was_saved() -> None:
    from core.comfy import HistoryEntry
    from core.controller.outputs import kept_images

    saved = ImageRef("a_00001_.png", "batchline/b", "output")
    preview = ImageRef("ComfyUI_temp_x_00001_.png", "", "temp")
    both = HistoryEntry("p", 1, "success", True, images=(preview, saved))
    only_preview = HistoryEntry("p", 1, "success", True, images=(preview,))
    assert kept_images(both) == (saved,)
    assert kept_images(only_preview) == (preview,)


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


@pytest.mark.asyncio
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


@pytest.mark.asyncio
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


@pytest.mark.asyncio
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


@pytest.mark.asyncio
@pytest.mark.parametrize("mask", [0o002, 0o022, 0o077])
async def test_pictures_get_the_users_file_mode(
    simulator: Simulator, tmp_path: Path, umask: None, mask: int
) -> None:
    os.umask(mask)
    async with ComfyClient(simulator.url) as client:
        (path,), _ = await fetch(client, await finished_entry(client, 6), tmp_path, "b", "j")
    assert Path(path).stat().st_mode & 0o777 == 0o666 & ~mask


@pytest.mark.asyncio
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


def queue_one_batch(ledger: Ledger, count: int, start: int) -> tuple[str, list[str]]:
    batch, jobs = queue_batch(ledger, "noise", BatchSpec(seeds=SeedPlan(count=count, start=start)))
    return batch.id, jobs


def finished(ledger: Ledger, jobs: list[str]) -> bool:
    return all(ledger.job(job).state.is_terminal for job in jobs)


@pytest.mark.asyncio
async def test_a_link_a_folder_or_a_dangling_link_at_the_name_is_passed_by(
    ledger: Ledger, simulator: Simulator, make_controller: MakeController, tmp_path: Path
) -> None:
    batch, jobs = queue_one_batch(ledger, 3, start=1)
    folder = tmp_path / "out" / batch
    folder.mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "theirs.png").write_bytes(b"theirs")
    (folder / f"{jobs[0]}_1.png").symlink_to(elsewhere / "theirs.png")
    (folder / f"{jobs[1]}_1.png").mkdir()
    (folder / f"{jobs[2]}_1.png").symlink_to(elsewhere / "nothing.png")
    await make_controller(ledger, simulator)
    await wait_for(lambda: finished(ledger, jobs))
    assert [ledger.job(job).state for job in jobs] == [JobState.succeeded] * 3
    outputs = [ledger.attempts(job)[-1].outputs for job in jobs]
    assert outputs == [[str(folder.resolve() / f"{job}_1-2.png")] for job in jobs]
    assert all(Path(path).is_file() and not Path(path).is_symlink() for (path,) in outputs)
    assert sorted(p.name for p in elsewhere.iterdir()) == ["theirs.png"], "nothing written there"
    assert (elsewhere / "theirs.png").read_bytes() == b"theirs"
    assert list((folder / f"{jobs[1]}_1.png").iterdir()) == []


@pytest.mark.asyncio
@pytest.mark.expect_log("core.controller.reconcile")
async def test_a_batch_folder_that_is_a_link_fails_that_batch_only(
    ledger: Ledger, simulator: Simulator, make_controller: MakeController, tmp_path: Path
) -> None:
    linked, linked_jobs = queue_one_batch(ledger, 2, start=1)
    plain, plain_jobs = queue_one_batch(ledger, 3, start=10)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / linked).symlink_to(elsewhere, target_is_directory=True)
    await make_controller(ledger, simulator)
    await wait_for(lambda: finished(ledger, [*linked_jobs, *plain_jobs]))
    assert [ledger.job(job).state for job in plain_jobs] == [JobState.succeeded] * 3
    assert len(list((tmp_path / "out" / plain).iterdir())) == 3
    for job in linked_jobs:
        record = ledger.job(job)
        assert (record.state, record.reason) == (JobState.failed, Reason.output_refused)
        (attempt,) = ledger.attempts(job)
        assert attempt.error is not None
        assert "is a link: refused" in attempt.error.message
        assert attempt.refs, "where its pictures are on the server stays on record"
    assert list(elsewhere.iterdir()) == [], "nothing written through the link"


@pytest.mark.asyncio
async def test_a_full_output_folder_waits_for_room_then_downloads(
    tmp_path: Path,
    ledger: Ledger,
    simulator: Simulator,
    make_controller: MakeController,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, "core.controller")
    with small_disk(tmp_path / "out", "256k") as out:
        filler = fill(out)
        ids = queue(ledger, 2)
        controller = await make_controller(ledger, simulator)
        await wait_for(lambda: controller.status.output_full == str(out))
        full = controller.status
        assert f"the output folder {out} is full" in full.local_error
        assert "pictures wait on the server until there is room" in full.local_error
        assert full.last_error == "", "not ComfyUI's fault"
        assert full.connection is not Connection.offline
        assert all(ledger.job(job_id).state.is_active for job_id in ids)
        assert not any(
            a.result == AttemptResult.failed for job_id in ids for a in ledger.attempts(job_id)
        )
        assert not list((out).rglob("*.png")), "nothing half written"
        full_logs = [r for r in caplog.records if "is full" in r.getMessage()]
        assert len(full_logs) == 1, "said once"
        assert full_logs[0].exc_info is None, "an expected condition: no traceback"

        filler.unlink()  # room again: the pictures come down without a restart
        await wait_for(lambda: all(ledger.job(job_id).state.is_terminal for job_id in ids))
        assert [ledger.job(job_id).state for job_id in ids] == [JobState.succeeded] * 2
        for job_id in ids:
            (attempt,) = ledger.attempts(job_id)
            assert attempt.outputs
            assert all(Path(p).is_file() for p in attempt.outputs)
            assert all(Path(p).is_relative_to(out) for p in attempt.outputs)
        await wait_for(lambda: controller.status.output_full == "")
        assert controller.status.local_error == ""


@pytest.mark.asyncio
async def test_nothing_more_is_sent_once_the_output_folder_is_found_full(
    tmp_path: Path, ledger: Ledger, simulator: Simulator, make_controller: MakeController
) -> None:
    with small_disk(tmp_path / "out", "256k") as out:
        filler = fill(out)
        ids = queue(ledger, 12)
        controller = await make_controller(ledger, simulator)
        await wait_for(lambda: controller.status.output_full == str(out))
        await asyncio.sleep(1.0)  # the tick is tried again and again meanwhile
        sent = [job_id for job_id in ids if ledger.attempts(job_id)]
        assert len(sent) <= 6, "two fills of the queue before the folder was found full, no more"

        filler.unlink()
        await wait_for(lambda: all(ledger.job(job_id).state.is_terminal for job_id in ids))
        assert {ledger.job(job_id).state for job_id in ids} == {JobState.succeeded}


@pytest.mark.asyncio
async def test_a_saved_picture_carries_the_parameters_text_of_its_workflow(
    simulator: Simulator, tmp_path: Path
) -> None:
    """Pictures Batchline saves read in image browsers as A1111's do: the `parameters` text
    is added beside ComfyUI's chunks, made from the picture's own workflow; downloading it
    again after a crash finds the same bytes and writes nothing new."""
    sampler = json.loads((DATA / "presets" / "api_sdxl_refiner.json").read_text("utf-8"))
    async with ComfyClient(simulator.url) as client:
        prompt_id = new_prompt_id()
        await client.submit(sampler, prompt_id)
        entry = await wait_until_finished(client, prompt_id)
        paths, _ = await fetch(client, entry, tmp_path, "b", "j")
        again, _ = await fetch(client, entry, tmp_path, "b", "j")
    assert again == paths
    chunks = read_text_chunks(Path(paths[0]).read_bytes())
    assert {"prompt", "parameters"} <= set(chunks)
    seed = next(n["inputs"]["noise_seed"] for n in sampler.values() if "noise_seed" in n["inputs"])
    assert f"Seed: {seed}" in chunks["parameters"]
    assert len(list((tmp_path / "b").iterdir())) == len(paths)
