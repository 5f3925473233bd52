"""Output paths: inside the output folder whatever the server or the ids say."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.batch.prompt import expected_outputs, prompt_for
from core.comfy import ComfyClient, ImageRef
from core.controller.outputs import output_path
from tests.core.conftest import MakeSimulator


def test_layout_is_batch_folder_and_job_file(tmp_path: Path) -> None:
    path = output_path(tmp_path, "batch_1", "job_2", 3, "ComfyUI_00001_.webp")
    assert path == tmp_path.resolve() / "batch_1" / "job_2_3.webp"


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
