"""Output paths: inside the output folder whatever the server or the ids say."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.batch.prompt import prompt_for
from core.controller.outputs import output_path


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


def test_saved_images_are_kept_and_previews_only_when_nothing_was_saved() -> None:
    from core.comfy import HistoryEntry, ImageRef
    from core.controller.outputs import kept_images

    saved = ImageRef("a_00001_.png", "batchline/b", "output")
    preview = ImageRef("ComfyUI_temp_x_00001_.png", "", "temp")
    both = HistoryEntry("p", 1, "success", True, images=(preview, saved))
    only_preview = HistoryEntry("p", 1, "success", True, images=(preview,))
    assert kept_images(both) == (saved,)
    assert kept_images(only_preview) == (preview,)
