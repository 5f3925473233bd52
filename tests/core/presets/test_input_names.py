"""One name per input: the node's title and the input, a hint only where two would read alike."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from core.batch import BatchSpec, GridAxis, SeedPlan, queue_batch
from core.catalogue import Catalogue
from core.ledger import Ledger
from core.presets import load_preset
from core.presets.input_names import input_names, names_of
from core.presets.storing import store_preset

PAIRS = Path(__file__).parents[2] / "data" / "golden-pairs"
SDXL = PAIRS / "sdxl_sdxl_refiner_prompt_example.json"


def sdxl_api(tmp_path: Path) -> dict[str, Any]:
    """The SDXL base+refiner example as ComfyUI's editor saved it, loaded as a preset."""
    path = tmp_path / "sdxl.json"
    path.write_text(json.dumps(json.loads(SDXL.read_text("utf-8"))["workflow"]), "utf-8")
    return load_preset(path).api_workflow


def test_sdxl_base_and_refiner_prompts_are_told_apart_by_the_samplers_they_feed(
    tmp_path: Path,
) -> None:
    names = input_names(sdxl_api(tmp_path), Catalogue.bundled())
    assert names["6.text"] == "Positive prompt (base) · text"
    assert names["7.text"] == "Negative prompt (base) · text"
    assert names["15.text"] == "Positive prompt (refiner) · text"
    assert names["16.text"] == "Negative prompt (refiner) · text"
    assert names["10.noise_seed"] == "KSampler (Advanced) - BASE · noise_seed"
    assert names["11.noise_seed"] == "KSampler (Advanced) - REFINER · noise_seed"
    assert names["5.width"] == "Empty Latent Image · width", "a name read once gets no hint"
    values = [name for key, name in names.items() if "." in key]
    assert len(set(values)) == len(values), "no two inputs read the same"


def test_untitled_twins_get_their_node_id(tmp_path: Path) -> None:
    api = json.loads(SDXL.read_text("utf-8"))["prompt"]  # no titles at all
    names = input_names(api, Catalogue.bundled())
    assert names["6.text"] == "Positive prompt (node 6) · text"
    assert names["15.text"] == "Positive prompt (node 15) · text"
    assert names["10.noise_seed"] == "KSampler (Advanced) (node 10) · noise_seed"
    assert names["11.noise_seed"] == "KSampler (Advanced) (node 11) · noise_seed"
    assert names["5.batch_size"] == "Empty Latent Image · batch_size"


def test_a_title_that_repeats_the_class_name_is_no_title() -> None:
    api = {
        "3": {"class_type": "KSampler", "_meta": {"title": "KSampler"}, "inputs": {"seed": 1}},
        "9": {"class_type": "Unknown", "inputs": {"x": 1}},
    }
    names = names_of(["3.seed", "9.x", "4.gone", "5.lost", "6.lost"], api, Catalogue.bundled())
    assert names == {
        "3.seed": "KSampler · seed",
        "9.x": "Unknown · x",
        "4.gone": "gone",  # on no node of the workflow: its input alone
        "5.lost": "5.lost",  # or in full, where two such would read the same
        "6.lost": "6.lost",
    }


def test_hints_that_would_not_tell_twins_apart_fall_back_to_ids() -> None:
    def text(clip: str) -> dict[str, Any]:
        return {"class_type": "CLIPTextEncode", "inputs": {"text": "a", "clip": [clip, 1]}}

    api = {
        "1": text("9"),
        "2": text("9"),
        "3": {
            "class_type": "KSampler",
            "_meta": {"title": "Main"},
            "inputs": {"positive": ["1", 0]},
        },
        "4": {
            "class_type": "KSampler",
            "_meta": {"title": "Main"},
            "inputs": {"positive": ["2", 0]},
        },
    }
    names = input_names(api, Catalogue.bundled())
    assert names["1.text"] == "Positive prompt (node 1) · text"
    assert names["2.text"] == "Positive prompt (node 2) · text"


SDXL_GRID = (("6.text", ("a fox", "an owl")), ("15.text", ("in snow", "in rain")))
BASE_PROMPT = "Positive prompt (base) · text"
REFINER_PROMPT = "Positive prompt (refiner) · text"
BASE_SEED = "KSampler (Advanced) - BASE · noise_seed"


def store_sdxl(ledger: Ledger, tmp_path: Path, name: str = "sdxl") -> str:
    """The SDXL base+refiner example stored as preset ``name`` (the doors' tests share it)."""
    path = tmp_path / "sdxl.json"
    path.write_text(json.dumps(json.loads(SDXL.read_text("utf-8"))["workflow"]), "utf-8")
    store_preset(ledger, name, load_preset(path))
    return name


def sdxl_grid_batch(ledger: Ledger, tmp_path: Path, seeds: int = 1) -> tuple[str, list[str]]:
    """A grid batch of the SDXL preset: base prompt across, refiner prompt down."""
    grid = tuple(GridAxis(key, values) for key, values in SDXL_GRID)
    spec = BatchSpec(seeds=SeedPlan(count=seeds), grid=grid)
    batch, ids = queue_batch(ledger, store_sdxl(ledger, tmp_path), spec)
    return batch.id, ids
