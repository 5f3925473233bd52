"""Tests for core.pictures.picture_parameters: a starred picture copied out with its A1111
``parameters`` text (read back to the job's values), ComfyUI's chunks and pixels as they
were, the optional sidecar, and the copy recalled to the exact values it was made with."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from core.batch import BatchSpec, GridAxis, SeedPlan, queue_batch
from core.batch.prompt import prompt_for
from core.batch.recall import literal_values, recall_png
from core.batch.workflow import build_workflow
from core.ledger import Ledger, PresetContent
from core.ledger.marks import Mark
from core.pictures.picks import export_marked
from core.pictures.picture_parameters import export_picture
from core.pictures.pictures import Picture
from core.presets import workflow_hash
from core.presets.infotext import parse_infotext
from simulator.images import pnginfo
from tests.core.helpers import succeed

PORTRAIT = Path(__file__).parents[3] / "resources" / "presets" / "Portrait txt2img (SD 1.5).json"


@pytest.fixture
def portrait_ledger(tmp_path: Path) -> Any:
    api = json.loads(PORTRAIT.read_text("utf-8"))
    with Ledger(tmp_path / "home") as ledger:
        ledger.presets.add("portrait", PresetContent(workflow_hash(api), api))
        yield ledger


def sent(ledger: Ledger, job_id: str) -> dict[str, Any]:
    job = ledger.job(job_id)
    batch = ledger.batch(job.batch)
    prompt_id = str(uuid.uuid5(uuid.NAMESPACE_URL, job_id))  # ComfyUI's prompt ids: uuids
    return prompt_for(ledger.workflow(batch.workflow_hash), job.params, batch.id, prompt_id)


def made_by_comfyui(ledger: Ledger, job_id: str, folder: Path, n: int) -> Path:
    """The picture ComfyUI saves for the job's prompt (its `prompt` and `workflow` chunks),
    recorded as the job's output."""
    path = folder / f"fox_{job_id}.png"
    workflow = {"nodes": [], "links": [], "version": 0.4}
    Image.new("RGB", (48, 32), (n * 40, 90, 200)).save(
        path, pnginfo=pnginfo(sent(ledger, job_id), {"workflow": workflow})
    )
    prompt_id = f"p-{job_id}"
    ledger.submit_attempt(job_id, prompt_id, "http://x", "wf")
    ledger.observe_queued(prompt_id, 1)
    ledger.observe_running(prompt_id)
    succeed(ledger, prompt_id, [str(path)])
    return path


@pytest.fixture
def starred(portrait_ledger: Ledger, tmp_path: Path) -> tuple[str, list[str], list[Path]]:
    spec = BatchSpec(
        seeds=SeedPlan(count=2, start=40),
        grid=(
            GridAxis("3.cfg", (5.5, 7.0)),
            GridAxis("3.sampler_name", ("euler_ancestral", "dpmpp_2m")),
        ),
    )
    batch, ids = queue_batch(portrait_ledger, "portrait", spec)
    out = tmp_path / "out"
    out.mkdir()
    pictures = [made_by_comfyui(portrait_ledger, job_id, out, n) for n, job_id in enumerate(ids)]
    portrait_ledger.marks.set(ids, Mark.star)
    return batch.id, ids, pictures


def test_each_copy_reads_back_its_jobs_values(portrait_ledger, starred, tmp_path) -> None:
    batch, ids, pictures = starred
    copies = export_marked(portrait_ledger, batch, tmp_path / "picks")
    assert [c.name for c in copies] == [p.name for p in pictures]
    for job_id, copy in zip(ids, copies, strict=True):
        inputs = sent(portrait_ledger, job_id)["3"]["inputs"]
        with Image.open(copy) as image:
            info = parse_infotext(image.info["parameters"])
        assert info.prompt == "portrait of a red fox in a misty forest, soft light"
        assert info.negative == "blurry, low quality"
        assert info.get("Seed") == str(inputs["seed"])
        assert float(info.params["CFG scale"]) == inputs["cfg"]
        assert (
            info.get("Sampler")
            == {"euler_ancestral": "Euler a", "dpmpp_2m": "DPM++ 2M"}[inputs["sampler_name"]]
        )
        assert (info.get("Steps"), info.get("Schedule type")) == ("20", "Normal")
        assert (info.get("Size"), info.get("Model")) == ("512x512", "v1-5-pruned-emaonly")
        assert "Model hash" not in info.params, "ComfyUI gives no hash: none is made up"


def test_comfyuis_chunks_and_the_pixels_are_kept(portrait_ledger, starred, tmp_path) -> None:
    batch, _ids, pictures = starred
    copies = export_marked(portrait_ledger, batch, tmp_path / "picks")
    for picture, copy in zip(pictures, copies, strict=True):
        with Image.open(copy) as copied, Image.open(picture) as original:
            assert copied.info["prompt"] == original.info["prompt"]
            assert copied.info["workflow"] == original.info["workflow"]
            assert copied.tobytes() == original.tobytes()
        assert picture.read_bytes().startswith(copy.read_bytes()[:33]), "same header"


def test_nothing_the_artist_made_is_written_over(portrait_ledger, starred, tmp_path) -> None:
    batch, _ids, pictures = starred
    picks = tmp_path / "picks"
    picks.mkdir()
    (picks / pictures[0].name).write_bytes(b"the artist's own file")
    (picks / f"{pictures[1].stem}.json").write_text("the artist's notes")
    copies = export_marked(portrait_ledger, batch, picks, sidecar=True)
    again = export_marked(portrait_ledger, batch, picks, sidecar=True)
    assert (picks / pictures[0].name).read_bytes() == b"the artist's own file"
    assert (picks / f"{pictures[1].stem}.json").read_text() == "the artist's notes"
    assert copies[0].name == f"{pictures[0].stem}-2.png"
    assert again == copies, "exporting again writes nothing twice"
    assert (picks / f"{pictures[1].stem}-2.json").is_file()


def test_the_sidecar_holds_the_same_values(portrait_ledger, starred, tmp_path) -> None:
    batch, ids, pictures = starred
    job = portrait_ledger.job(ids[3])
    copy, sidecar = export_picture(
        portrait_ledger, Picture(job.id, pictures[3]), tmp_path / "one", sidecar=True
    )
    assert sidecar == copy.with_suffix(".json")
    values = json.loads(sidecar.read_text("utf-8"))
    with Image.open(copy) as image:
        assert values["parameters"] == image.info["parameters"]
    inputs = sent(portrait_ledger, job.id)["3"]["inputs"]
    assert values["seed"] == inputs["seed"]
    assert values["cfg_scale"] == inputs["cfg"]
    assert (values["width"], values["height"], values["steps"]) == (512, 512, 20)
    assert values["prompt"] == "portrait of a red fox in a misty forest, soft light"
    assert values["negative_prompt"] == "blurry, low quality"
    assert (values["job"], values["batch"], values["preset"]) == (job.id, batch, "portrait")
    assert values["values"] == job.params
    assert values["loras"] == []


def test_a_picture_without_a_prompt_chunk_takes_its_jobs_values(
    portrait_ledger, starred, tmp_path
) -> None:
    _batch, ids, _pictures = starred
    plain = tmp_path / "plain.png"
    Image.new("RGB", (8, 8)).save(plain)
    copy, sidecar = export_picture(portrait_ledger, Picture(ids[1], plain), tmp_path / "c")
    assert sidecar is None
    with Image.open(copy) as image:
        seed = portrait_ledger.job(ids[1]).params["3.seed"]
        assert parse_infotext(image.info["parameters"]).get("Seed") == str(seed)


def test_a_picture_other_than_a_png_is_copied_as_it_is(portrait_ledger, starred, tmp_path) -> None:
    _batch, ids, _pictures = starred
    webp = tmp_path / "a.webp"
    Image.new("RGB", (8, 8)).save(webp)
    copy, sidecar = export_picture(
        portrait_ledger, Picture(ids[0], webp), tmp_path / "c", sidecar=True
    )
    assert copy.read_bytes() == webp.read_bytes()
    assert sidecar is None


def test_an_exported_picture_recalls_exactly_the_values_it_was_made_with(
    portrait_ledger, starred, tmp_path
) -> None:
    batch, ids, _pictures = starred
    copies = export_marked(portrait_ledger, batch, tmp_path / "picks")
    for job_id, copy in zip(ids, copies, strict=True):
        recall = recall_png(portrait_ledger, copy.read_bytes(), copy)
        assert recall.preset == "portrait"
        assert not recall.parameters_only, "ComfyUI's workflow is read, not the text"
        job = portrait_ledger.job(job_id)
        ran = build_workflow(
            portrait_ledger.workflow(portrait_ledger.batch(job.batch).workflow_hash), job.params
        )
        assert recall.values == literal_values(ran)


def test_a_damaged_png_is_copied_as_it_is(portrait_ledger, starred, tmp_path) -> None:
    _batch, ids, pictures = starred
    cut = tmp_path / "cut.png"
    cut.write_bytes(pictures[0].read_bytes()[:-30])
    copy, _ = export_picture(portrait_ledger, Picture(ids[0], cut), tmp_path / "c")
    assert copy.read_bytes() == cut.read_bytes()
