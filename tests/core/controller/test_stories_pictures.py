"""Stories of a batch over a folder of the artist's pictures, across the controller's modules
(dispatch, picture uploads, reconcile, the outputs) and the ledger: real simulators, real
PNGs, a real ledger. Each picture goes to each server at most once, every job reads its own,
the outputs carry the pictures' stems; a server that lost its input folder (a restart of a new
server, or a wipe while it runs) gets them again, with no failed job."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from core.batch import BatchSpec, GridAxis, SeedPlan, queue_batch
from core.inputs import PictureRef, PictureStore, picture_paths
from core.job_state import AttemptResult, JobState, Reason
from core.ledger import Ledger, PresetContent
from core.presets import workflow_hash
from simulator import Simulator
from tests.core.conftest import MakeSimulator
from tests.core.controller.conftest import MakeController
from tests.core.controller.test_controller import all_done, states
from tests.core.helpers import wait_for
from tests.core.inputs.pictures import make_folder

pytestmark = pytest.mark.asyncio

PICTURES = 12

# LoadImage -> ImageAddNoise(seed) -> SaveImage: image-to-image without models.
IMG2IMG = {
    "1": {"class_type": "LoadImage", "inputs": {"image": "example.png"}},
    "2": {"class_type": "ImageAddNoise", "inputs": {"image": ["1", 0], "seed": 1, "strength": 0.5}},
    "3": {"class_type": "SaveImage", "inputs": {"images": ["2", 0], "filename_prefix": "i2i"}},
}


def _folder_of_pictures(ledger: Ledger, tmp_path: Path) -> list[PictureRef]:
    """Twelve different PNGs in a folder, "one job per picture" as the composer takes them."""
    ledger.presets.add("img2img", PresetContent(workflow_hash(IMG2IMG), IMG2IMG))
    make_folder(tmp_path / "renders", PICTURES)
    store = PictureStore.of(ledger)
    return [store.add(path) for path in picture_paths(tmp_path / "renders")]


def _queue(ledger: Ledger, refs: list[PictureRef], seed: int) -> list[str]:
    axis = GridAxis("1.image", tuple(ref.to_param() for ref in refs))
    spec = BatchSpec(seeds=SeedPlan(count=1, start=seed), grid=(axis,))
    return queue_batch(ledger, "img2img", spec)[1]


def _uploads(simulator: Simulator) -> int:
    return int(simulator.upload_stats()["uploads"])


def _each_once(simulator: Simulator) -> None:
    names = simulator.upload_stats()["names"]
    assert names, "something was uploaded"
    assert set(names.values()) == {1}, f"a picture uploaded twice: {names}"


def _check_jobs(ledger: Ledger, ids: list[str], by_url: dict[str, Simulator]) -> None:
    """Every job succeeded, read its own picture on the server it ran on, and came back
    named by the picture's stem and its seed, with a picture made of its own input."""
    assert states(ledger, ids) == [JobState.succeeded] * len(ids)
    made = set()
    for job_id in ids:
        job = ledger.job(job_id)
        ref = PictureRef.from_param(job.params["1.image"])
        assert ref is not None
        attempt = ledger.attempts(job_id)[-1]
        simulator = by_url[attempt.server]
        value = ledger.server_pictures.get(attempt.server, ref.sha256)
        assert value is not None
        assert simulator.inputs_read()[attempt.prompt_id] == [value]
        stored = simulator.input_dir / value
        assert hashlib.sha256(stored.read_bytes()).hexdigest() == ref.sha256
        (output,) = attempt.outputs
        assert Path(output).name == f"{ref.stem}_{job.params['2.seed']}_1.png"
        made.add(hashlib.sha256(Path(output).read_bytes()).hexdigest())
    assert len(made) == len(ids), "each job's picture is made of its own input"


def _on(ledger: Ledger, ids: list[str], url: str) -> set[str]:
    """The pictures of ``ids`` whose jobs ran (or were sent) on ``url``."""
    found = set()
    for job_id in ids:
        if any(a.server == url for a in ledger.attempts(job_id)):
            ref = PictureRef.from_param(ledger.job(job_id).params["1.image"])
            assert ref is not None
            found.add(ref.sha256)
    return found


async def test_a_folder_on_two_servers_goes_to_each_once_and_comes_back_named(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController, tmp_path: Path
) -> None:
    refs = _folder_of_pictures(ledger, tmp_path)
    simulators = [await make_simulator(), await make_simulator()]
    by_url = {s.url: s for s in simulators}
    first = _queue(ledger, refs, seed=100)
    await make_controller(ledger, simulators, global_cap=8)
    await wait_for(all_done(ledger, first), 60)
    _check_jobs(ledger, first, by_url)
    for simulator in simulators:
        _each_once(simulator)
        assert _uploads(simulator) == len(_on(ledger, first, simulator.url))
    assert sum(_uploads(s) for s in simulators) >= PICTURES
    before = {s.url: _on(ledger, first, s.url) for s in simulators}
    counts = {s.url: _uploads(s) for s in simulators}

    second = _queue(ledger, refs, seed=200)  # the same folder again
    await wait_for(all_done(ledger, second), 60)
    _check_jobs(ledger, second, by_url)
    for simulator in simulators:
        _each_once(simulator)
        new_there = _on(ledger, second, simulator.url) - before[simulator.url]
        assert _uploads(simulator) == counts[simulator.url] + len(new_there), (
            "only a picture that server never had goes up"
        )


async def test_a_second_batch_over_the_same_folder_uploads_nothing(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController, tmp_path: Path
) -> None:
    """Nor does a third one after Batchline itself restarted (the names are in the ledger:
    each is looked up, none sent)."""
    refs = _folder_of_pictures(ledger, tmp_path)
    simulator = await make_simulator()
    by_url = {simulator.url: simulator}
    first = _queue(ledger, refs, seed=1)
    controller = await make_controller(ledger, simulator, global_cap=8)
    await wait_for(all_done(ledger, first), 60)
    assert _uploads(simulator) == PICTURES
    second = _queue(ledger, refs, seed=2)
    await wait_for(all_done(ledger, second), 60)
    _check_jobs(ledger, second, by_url)
    assert _uploads(simulator) == PICTURES
    await controller.stop()
    third = _queue(ledger, refs, seed=3)
    await make_controller(ledger, simulator, global_cap=8)
    await wait_for(all_done(ledger, third), 60)
    _check_jobs(ledger, third, by_url)
    assert _uploads(simulator) == PICTURES
    _each_once(simulator)


async def test_a_server_restarted_with_an_empty_input_folder_gets_them_again(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController, tmp_path: Path
) -> None:
    refs = _folder_of_pictures(ledger, tmp_path)
    simulator = await make_simulator(keep_input=False)  # a new machine at the same address
    by_url = {simulator.url: simulator}
    first = _queue(ledger, refs, seed=1)
    await make_controller(ledger, simulator, global_cap=8)
    await wait_for(all_done(ledger, first), 60)
    assert _uploads(simulator) == PICTURES
    await simulator.restart()
    assert not any(simulator.input_dir.iterdir())
    # Its socket back: the controller saw it drop (the server may have restarted) before.
    await wait_for(lambda: simulator.stats()["websockets"] == 1, 30)
    second = _queue(ledger, refs, seed=2)
    await wait_for(all_done(ledger, second), 60)
    _check_jobs(ledger, second, by_url)
    assert _uploads(simulator) == 2 * PICTURES
    assert all(len(ledger.attempts(job_id)) == 1 for job_id in second), "no prompt refused"


async def test_a_wiped_input_folder_gets_them_again_with_no_failed_job(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController, tmp_path: Path
) -> None:
    """Wiped with the server running (no restart seen): its prompts are refused for the
    pictures ("Invalid image file"), which are uploaded again, and the jobs placed again."""
    refs = _folder_of_pictures(ledger, tmp_path)
    simulator = await make_simulator()
    by_url = {simulator.url: simulator}
    first = _queue(ledger, refs, seed=1)
    await make_controller(ledger, simulator, global_cap=8)
    await wait_for(all_done(ledger, first), 60)
    assert _uploads(simulator) == PICTURES
    assert simulator.wipe_input() > 0
    second = _queue(ledger, refs, seed=2)
    await wait_for(all_done(ledger, second), 60)
    _check_jobs(ledger, second, by_url)
    assert _uploads(simulator) == 2 * PICTURES
    refused = [a for j in second for a in ledger.attempts(j) if a.result == AttemptResult.failed]
    assert refused, "the first prompts were refused for the lost pictures"
    assert {a.reason for a in refused} == {Reason.picture_missing}
    assert all(ledger.job(j).attempt <= 2 for j in second)


async def test_a_folder_wiped_while_prompts_wait_on_the_server_costs_no_job(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController, tmp_path: Path
) -> None:
    """Wiped while prompts that validated wait in the server's queue (seen on a real ComfyUI
    0.3.64: LoadImage raised FileNotFoundError as they ran): each such run is a lost picture,
    not a failed job: uploaded again, the job runs again."""
    refs = _folder_of_pictures(ledger, tmp_path)
    simulator = await make_simulator(job_seconds=0.3)
    ids = _queue(ledger, refs, seed=1)
    await make_controller(ledger, simulator, global_cap=8)
    await wait_for(lambda: JobState.succeeded in states(ledger, ids), 60)
    waiting = [job_id for job_id in ids if ledger.job(job_id).state is JobState.queued]
    assert waiting, "prompts wait on the server"
    assert simulator.wipe_input() > 0
    await wait_for(all_done(ledger, ids), 60)
    assert states(ledger, ids) == [JobState.succeeded] * len(ids)
    lost = [a for j in ids for a in ledger.attempts(j) if a.result == AttemptResult.failed]
    assert {a.reason for a in lost} == {Reason.picture_missing}
    ran = [a for a in lost if a.error is not None and a.error.exception_type]
    assert ran, "a prompt that validated lost its picture as it ran"
    assert {a.error.exception_type for a in ran if a.error} == {"FileNotFoundError"}
    assert all(ledger.job(j).attempt <= 2 for j in ids)
