"""A batch's title: the artist's name, else its preset and what varies; many told apart."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from core.batch import BatchSpec, GridAxis, SeedMode, SeedPlan, queue_batch
from core.batch.batch_title import (
    PRESET_ROOM,
    AxisFacts,
    batch_title,
    batch_titles,
    default_title,
    short_name,
    stored_title,
    told_apart,
)
from core.catalogue import Catalogue
from core.inputs import PictureRef
from core.ledger import NewJob, PresetContent
from core.names import MAX_NAME, checked_name
from core.presets import workflow_hash
from tests.core.batch.test_queueing import TEXTS
from tests.core.helpers import NOISE_WORKFLOW
from tests.core.presets.test_input_names import sdxl_api, store_sdxl

if TYPE_CHECKING:
    from pathlib import Path

    from core.ledger import Ledger


def seeds(mode: str = "sequence", count: int = 1, **plan: Any) -> dict[str, Any]:
    return {"mode": mode, "count": count, **plan}


def grid(*axes: tuple[str, list[Any]], **spec: Any) -> dict[str, Any]:
    """A stored spec (``batch.spec``) with these axes, seeds kept unless given."""
    return {
        "seeds": seeds("keep"),
        "grid": [{"input": key, "values": values} for key, values in axes],
        **spec,
    }


PICTURES = [
    PictureRef(f"{i:02x}" * 32, f"r{i}.png", f"/r/r{i}.png", 9).to_param() for i in range(12)
]


# --- seeds only ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("plan", "title"),
    [
        (seeds(count=40), "Portrait · 40 seeds"),
        (seeds("random", 40), "Portrait · 40 seeds"),
        (seeds(count=1, start=7), "Portrait · seed 7"),
        (seeds("explicit", 1, values=[1234567890123]), "Portrait · seed 1234567890123"),
        (seeds("explicit", 3, values=[1, 2, 3]), "Portrait · 3 seeds"),
        (seeds("random", 1), "Portrait · 1 seed"),
        (seeds(count=12_000), "Portrait · 12,000 seeds"),
        (seeds("keep"), "Portrait"),
        (None, "Portrait"),  # a batch stored before specs were: its preset
    ],
)
def test_a_seed_batch_is_called_by_its_preset_and_its_seeds(plan: Any, title: str) -> None:
    assert default_title("Portrait", {"seeds": plan} if plan else {}) == title


def test_the_seeds_the_jobs_took_count_over_the_spec() -> None:
    """One seed per input: a list of 8 values for 2 inputs makes 4 seeds."""
    plan = seeds("explicit", 8, values=list(range(8)), per_input=True)
    assert default_title("Portrait", {"seeds": plan}, seeds=4) == "Portrait · 4 seeds"


# --- axes ----------------------------------------------------------------------------------------


def test_an_input_is_named_by_its_own_short_name() -> None:
    assert short_name("3.sampler_name") == "sampler"
    assert short_name("3.cfg") == "cfg"
    assert short_name("4.ckpt_name") == "checkpoint"
    assert short_name("5.batch_size") == "batch size"
    assert short_name("10.start_at_step") == "start at step"
    assert short_name("7.lora_name") == "LoRA"


def test_one_axis_and_two() -> None:
    assert default_title("Fox", grid(("3.cfg", [5, 7, 9]))) == "Fox · cfg"
    two = grid(("3.sampler_name", ["euler", "ddim"]), ("3.cfg", [5, 7]))
    assert default_title("Fox", two) == "Fox · sampler × cfg"
    assert default_title("Fox", {**two, "seeds": seeds(count=4)}) == "Fox · sampler × cfg × 4 seeds"
    assert default_title("Fox", {**two, "seeds": seeds(count=1)}) == "Fox · sampler × cfg", (
        "one seed under a grid varies nothing"
    )


def test_an_axis_of_one_value_varies_nothing() -> None:
    spec = grid(("3.cfg", [7]), ("3.steps", [20, 30]))
    assert default_title("Fox", spec) == "Fox · steps"
    assert default_title("Fox", grid(("3.cfg", [7]))) == "Fox"


def test_zipped_axes_walk_as_one() -> None:
    spec = grid(
        ("3.sampler_name", ["euler", "ddim"]),
        ("3.scheduler", ["normal", "karras"]),
        ("3.cfg", [5, 7]),
        zips=[["3.scheduler", "3.sampler_name"]],
    )
    assert default_title("Fox", spec) == "Fox · sampler & scheduler × cfg"


def test_pictures_prompts_and_seed_axes_are_counted() -> None:
    assert default_title("img2img", grid(("1.image", PICTURES))) == "img2img · 12 pictures"
    assert default_title("img2img", grid(("1.image", PICTURES[:1]))) == "img2img · 1 picture"
    texts = [f"a fox {i}" for i in range(8)]
    every = grid(("6.text", texts), wildcards={"6.text": "all"}, seeds=seeds(count=4))
    assert default_title("Fox", every) == "Fox · 8 prompts × 4 seeds"
    assert default_title("Fox", grid(("3.noise_seed", [1, 2, 3]))) == "Fox · 3 seeds"
    paired = grid(
        ("1.image", PICTURES), ("6.text", texts + texts[:4]), zips=[["1.image", "6.text"]]
    )
    assert default_title("img2img", paired, AxisFacts(prompts=frozenset({"6.text"}))) == (
        "img2img · 12 pictures & prompts"
    )


def test_the_workflow_says_which_inputs_take_prompts_and_pictures() -> None:
    api = {
        "1": {"class_type": "LoadImage", "inputs": {"image": "a.png"}},
        "6": {"class_type": "CLIPTextEncode", "inputs": {"text": "a fox", "clip": ["4", 1]}},
        "7": {"class_type": "SaveImage", "inputs": {"filename_prefix": "x", "images": ["1", 0]}},
    }
    facts = AxisFacts.of(api, Catalogue.bundled())
    spec = grid(("6.text", ["a fox", "an owl"]), ("1.image", ["a.png", "b.png", "c.png"]))
    assert default_title("img2img", spec, facts) == "img2img · 2 prompts × 3 pictures"
    names = grid(("7.filename_prefix", ["a", "b"]))
    assert default_title("img2img", names, facts) == "img2img · filename prefix"


def test_base_and_refiner_inputs_are_told_apart_as_the_composer_tells_them(
    tmp_path: Path,
) -> None:
    facts = AxisFacts.of(sdxl_api(tmp_path), Catalogue.bundled())
    steps = grid(("10.steps", [20, 30]), ("11.steps", [5, 10]))
    assert default_title("SDXL", steps, facts) == "SDXL · steps (base) × steps (refiner)"
    prompts = grid(("6.text", ["a", "b"]), ("15.text", ["c", "d"]))
    assert default_title("SDXL", prompts, facts) == "SDXL · 2 prompts (base) × 2 prompts (refiner)"
    roles = grid(("6.text", ["a", "b"]), ("7.text", ["c", "d"]))
    assert default_title("SDXL", roles, facts) == (
        "SDXL · 2 prompts (positive) × 2 prompts (negative)"
    )
    assert default_title("SDXL", steps) == "SDXL · steps (node 10) × steps (node 11)", (
        "without the workflow: by node"
    )


# --- what a name may hold ------------------------------------------------------------------------


def test_a_long_title_is_cut_within_the_name_limit() -> None:
    preset = "P" * MAX_NAME
    spec = grid(*((f"{n}.input_{n}", [1, 2]) for n in range(40)))
    title = default_title(preset, spec)
    assert len(title) == MAX_NAME
    assert checked_name(title, "a batch") == title
    assert title.startswith("P" * (PRESET_ROOM - 1) + "… · input 0 × input 1")
    assert title.endswith("…")
    alone = default_title(preset, {"seeds": seeds(count=40)})
    assert len(alone) <= MAX_NAME
    assert alone.startswith("P" * (PRESET_ROOM - 1) + "… · 40 seeds")
    assert default_title("P" * MAX_NAME, {}) == "P" * MAX_NAME


def test_what_a_node_title_holds_that_a_name_may_not_goes() -> None:
    names = {"3.cfg": "Base/Refiner · cfg", "9.cfg": "Base\u202e\\Refiner\n · cfg"}
    facts = AxisFacts(names=names)
    spec = grid(("3.cfg", [5, 7]), ("9.cfg", [5, 7]))
    title = default_title("Fox\u200f", spec, facts)
    assert checked_name(title, "a batch") == title
    assert title == "Fox · cfg (node 3) × cfg (node 9)"
    hinted = AxisFacts(names={"3.cfg": "Sampler a/b · cfg", "9.cfg": "Sampler c\td · cfg"})
    assert default_title("Fox", spec, hinted) == "Fox · cfg (a-b) × cfg (c d)"


# --- told apart ----------------------------------------------------------------------------------


def test_batches_of_one_title_are_told_apart_in_creation_order() -> None:
    titles = [("b1", "Fox"), ("b2", "Owl"), ("b3", "Fox"), ("b4", "Fox #2"), ("b5", "Fox")]
    assert told_apart(titles) == {
        "b1": "Fox",
        "b2": "Owl",
        "b3": "Fox #3",  # "Fox #2" is another batch's own name
        "b4": "Fox #2",
        "b5": "Fox #4",
    }
    labels = told_apart(titles)
    assert len(set(labels.values())) == len(labels)


# --- in the ledger -------------------------------------------------------------------------------


def test_a_batch_queued_without_a_name_is_given_its_title(ledger: Ledger) -> None:
    batch, _ = queue_batch(ledger, "noise", BatchSpec(seeds=SeedPlan(count=40)))
    assert batch.name == "noise · 40 seeds"
    grid_spec = BatchSpec(
        grid=(GridAxis("2.strength", (0.25, 0.75)), GridAxis("1.width", (64, 96)))
    )
    assert queue_batch(ledger, "noise", grid_spec)[0].name == "noise · strength × width"
    named, _ = queue_batch(ledger, "noise", BatchSpec(), name="Dusk study")
    assert named.name == "Dusk study"
    assert queue_batch(ledger, "noise", BatchSpec())[0].name == "noise · seed 0"
    kept = BatchSpec(seeds=SeedPlan(SeedMode.keep))
    blank, _ = queue_batch(ledger, "noise", kept, name="  ")
    assert blank.name == "noise", "nothing varies: the preset alone"


def test_one_seed_per_input_is_counted_once_per_job(ledger: Ledger) -> None:
    two = {
        **NOISE_WORKFLOW,
        "5": {"class_type": "ImageAddNoise", "inputs": {"image": ["2", 0], "seed": 3}},
    }
    ledger.presets.add("two seeds", PresetContent(workflow_hash(two), two))
    plan = SeedPlan(SeedMode.explicit, count=6, values=tuple(range(6)), per_input=True)
    batch, ids = queue_batch(ledger, "two seeds", BatchSpec(seeds=plan))
    assert len(ids) == 3
    assert batch.name == "two seeds · 3 seeds"


def test_all_texts_of_a_wildcard_are_counted_as_prompts(ledger: Ledger) -> None:
    ledger.presets.add("texts", PresetContent(workflow_hash(TEXTS), TEXTS))
    spec = BatchSpec(
        seeds=SeedPlan(count=2),
        overrides=("4.value={fox|owl} at {dawn|dusk}",),
        wildcards={"4.value": "all"},
    )
    batch, _ = queue_batch(ledger, "texts", spec)
    assert batch.name == "texts · 4 prompts × 2 seeds"


def test_the_base_and_refiner_grid_of_the_sdxl_example(ledger: Ledger, tmp_path: Path) -> None:
    name = store_sdxl(ledger, tmp_path)
    spec = BatchSpec(grid=(GridAxis("10.steps", (20, 30)), GridAxis("11.steps", (5, 10))))
    batch, _ = queue_batch(ledger, name, spec)
    assert batch.name == "sdxl · steps (base) × steps (refiner)"
    ledger.name_batch(batch.id, "")
    assert stored_title(ledger, ledger.batch(batch.id)) == batch.name, "the same read back"


def test_a_batch_without_a_name_reads_as_its_title(ledger: Ledger) -> None:
    """A batch made before titles were given (its name NULL), or whose name was taken off."""
    old, _ = ledger.create_batch("noise", [NewJob({"2.seed": 1})], requester="a")
    assert old.name is None
    assert batch_title(ledger, old) == "noise"
    spec = BatchSpec(seeds=SeedPlan(count=3), grid=(GridAxis("2.strength", (0.25, 0.75)),))
    batch, _ = queue_batch(ledger, "noise", spec)
    ledger.name_batch(batch.id, "Dusk")
    assert batch_title(ledger, ledger.batch(batch.id)) == "Dusk"
    unnamed = ledger.name_batch(batch.id, "")
    assert unnamed.name is None
    assert batch_title(ledger, unnamed) == "noise · strength × 3 seeds"
    again, _ = queue_batch(ledger, "noise", spec)
    assert batch_titles(ledger) == {
        old.id: "noise",
        batch.id: "noise · strength × 3 seeds",
        again.id: "noise · strength × 3 seeds #2",
    }


def test_many_batches_of_one_workflow_read_it_once(ledger: Ledger, monkeypatch) -> None:
    spec = BatchSpec(grid=(GridAxis("2.strength", (0.25, 0.75)),))
    made = [queue_batch(ledger, "noise", spec)[0] for _ in range(3)]
    for batch in made:
        ledger.name_batch(batch.id, "")
    read: list[str] = []
    workflow = ledger.workflow
    monkeypatch.setattr(ledger, "workflow", lambda h: read.append(h) or workflow(h))
    titles = batch_titles(ledger)
    assert list(titles.values()) == [
        "noise · strength",
        "noise · strength #2",
        "noise · strength #3",
    ]
    assert len(read) == 1
