"""Tests for core.batch.wildcard_spec: wildcards in a batch's texts, random by the job's seed or
every text an axis, each refusal naming its input and cause."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from core.batch import BatchSpec, GridAxis, SeedMode, SeedPlan, compose
from core.batch.compose import expand_spec
from core.batch.wildcard_spec import text_inputs
from core.batch.wildcards import expand_random
from core.catalogue import Catalogue
from core.errors import BatchTooLarge, CompositionError
from core.presets import preset_from_api

if TYPE_CHECKING:
    from core.presets import Preset

COLOURS = "{red|green|blue|amber|violet|teal|grey|black}"


def _folder(tmp_path: Path, **files: str) -> Path:
    folder = tmp_path / "wildcards"
    folder.mkdir(exist_ok=True)
    for name, text in files.items():
        (folder / f"{name}.txt").write_text(text, encoding="utf-8")
    return folder


def test_the_text_inputs_are_the_string_widgets_not_the_choices(one_seed: Preset) -> None:
    texts = text_inputs(one_seed.api_workflow, Catalogue.bundled())
    assert texts == {"6.text": "a fox", "7.text": "blurry", "9.filename_prefix": "fox"}


def test_an_override_is_resolved_by_each_jobs_seed_the_same_every_time(one_seed: Preset) -> None:
    spec = BatchSpec(SeedPlan(count=12), overrides={"6.text": f"a {COLOURS} fox"})
    jobs = compose(one_seed, spec)
    texts = [job.params["6.text"] for job in jobs]
    assert texts == [expand_random(f"a {COLOURS} fox", seed, salt="6.text") for seed in range(12)]
    assert len(set(texts)) > 1  # the seeds choose, not one text for all
    assert [job.params["6.text"] for job in compose(one_seed, spec)] == texts  # reproducible
    assert all("{" not in text for text in texts)


def test_the_presets_own_text_is_resolved_and_two_inputs_choose_independently(
    tmp_path: Path, one_seed: Preset
) -> None:
    folder = _folder(tmp_path, animals="fox\nowl\n# a comment\nhare {cub|kit}\n")
    spec = BatchSpec(
        SeedPlan(count=20), overrides={"6.text": "a __animals__", "7.text": "a __animals__"}
    )
    jobs = compose(one_seed, spec, wildcards_folder=folder)
    positive = [job.params["6.text"] for job in jobs]
    negative = [job.params["7.text"] for job in jobs]
    assert set(positive) <= {"a fox", "a owl", "a hare cub", "a hare kit"}
    assert positive != negative  # salted by the input: not the same choice on both
    api = copy.deepcopy(one_seed.api_workflow)
    api["6"]["inputs"]["text"] = "a {cat|dog}"
    own = preset_from_api(api, Path("own.json"), seed_inputs=["3.seed"])
    jobs = compose(own, BatchSpec(SeedPlan(count=8)))
    assert [job.params["6.text"] for job in jobs] == [
        expand_random("a {cat|dog}", seed, salt="6.text") for seed in range(8)
    ]
    assert {job.params["6.text"] for job in jobs} == {"a cat", "a dog"}


def test_a_kept_seed_resolves_by_the_workflows_own_seed(one_seed: Preset) -> None:
    grid = (GridAxis("3.steps", (10, 20)),)
    spec = BatchSpec(SeedPlan(SeedMode.keep), overrides={"6.text": COLOURS}, grid=grid)
    jobs = compose(one_seed, spec)
    own = expand_random(COLOURS, 1234, salt="6.text")  # node 10's value is the seed
    assert [job.params["6.text"] for job in jobs] == [own, own]


def test_all_makes_an_axis_of_every_text(one_seed: Preset) -> None:
    spec = BatchSpec(
        SeedPlan(count=2),
        overrides={"6.text": "a {red|blue} {fox|owl}", "3.cfg": 5},
        grid=(GridAxis("3.steps", (10, 20)),),
        wildcards={"6.text": "all"},
    )
    expanded = expand_spec(one_seed, spec, Catalogue.bundled(), None)
    assert expanded.grid == (
        GridAxis("3.steps", (10, 20)),
        GridAxis("6.text", ("a red fox", "a red owl", "a blue fox", "a blue owl")),
    )
    assert dict(expanded.overrides) == {"3.cfg": 5}
    assert expand_spec(one_seed, expanded, Catalogue.bundled(), None) == expanded
    jobs = compose(one_seed, spec)
    assert len(jobs) == 2 * 2 * 4
    assert {job.params["6.text"] for job in jobs} == set(expanded.grid[1].values)
    assert jobs[0].grid == (0, 0)


def test_all_on_an_axis_expands_each_of_its_values_in_place(one_seed: Preset) -> None:
    grid = (GridAxis("6.text", ("a {fox|owl}", "a hare", "a fox")),)
    spec = BatchSpec(SeedPlan(SeedMode.keep), grid=grid, wildcards={"6.text": "all"})
    expanded = expand_spec(one_seed, spec, Catalogue.bundled(), None)
    assert expanded.grid == (GridAxis("6.text", ("a fox", "a owl", "a hare")),)
    untouched = BatchSpec(overrides=("3.cfg=5",), wildcards={"6.text": "random"})
    assert expand_spec(one_seed, untouched, Catalogue.bundled(), None) is untouched


def test_a_wildcard_bomb_is_refused_naming_the_input_and_its_count(one_seed: Preset) -> None:
    bomb = "{a|b|c|d|e|f|g|h|i|j}" * 5  # 100,000 texts
    spec = BatchSpec(overrides={"6.text": bomb}, wildcards={"6.text": "all"})
    with pytest.raises(
        CompositionError,
        match=r"^node 6, input 'text': its wildcards expand to 100,000 texts, more than 10,000$",
    ):
        compose(one_seed, spec)
    huge = BatchSpec(overrides={"6.text": "{a|b}" * 60}, wildcards={"6.text": "all"})
    with pytest.raises(CompositionError, match=r"node 6, input 'text': .*more than 1,000,000"):
        compose(one_seed, huge)
    deep = "{" * 12 + "a" + "}" * 12
    with pytest.raises(CompositionError, match=r"^node 6, input 'text': a wildcard nests deeper"):
        compose(one_seed, BatchSpec(overrides={"6.text": deep}))


def test_texts_that_together_pass_the_job_limit_are_refused_before_they_are_built(
    one_seed: Preset,
) -> None:
    spec = BatchSpec(
        overrides={"6.text": "{a|b|c|d|e|f|g|h|i|j}" * 3, "7.text": "{a|b|c|d|e|f|g|h|i|j}" * 3},
        wildcards={"6.text": "all", "7.text": "all"},
    )
    with pytest.raises(
        BatchTooLarge,
        match=r"node 6, input 'text' \(1,000\) and node 7, input 'text' \(1,000\) "
        r"would make 1,000,000 jobs",
    ):
        compose(one_seed, spec)


def test_a_missing_wildcard_file_is_named(tmp_path: Path, one_seed: Preset) -> None:
    folder = _folder(tmp_path)
    spec = BatchSpec(overrides={"6.text": "a __beasts__"})
    with pytest.raises(
        CompositionError, match=rf"^node 6, input 'text': no wildcard file 'beasts.txt' in {folder}"
    ):
        compose(one_seed, spec, wildcards_folder=folder)


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        (BatchSpec(wildcards={"6.text": "some"}), "node 6, input 'text': wildcards are 'random'"),
        (BatchSpec(wildcards={"3.cfg": "all"}), "node 3, input 'cfg' is not a text input"),
        (BatchSpec(wildcards={"6text": "all"}), "is not of the form NODE_ID.INPUT"),
        (
            BatchSpec(
                grid=(GridAxis("6.text", ("a", "b")), GridAxis("3.steps", (1, 2))),
                zips=(("6.text", "3.steps"),),
                wildcards={"6.text": "all"},
            ),
            "node 6, input 'text' is zipped: its wildcards can be random only",
        ),
        (BatchSpec(overrides={"6.text": "a {fox"}), "node 6, input 'text': a '{' is never closed"),
    ],
)
def test_bad_wildcard_requests_are_refused_naming_the_input(
    one_seed: Preset, spec: BatchSpec, said: str
) -> None:
    with pytest.raises(CompositionError, match=said):
        compose(one_seed, spec)
