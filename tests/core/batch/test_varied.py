"""What a batch's jobs vary and share, gathered from their params."""

from __future__ import annotations

from pathlib import Path

from core.batch.varied import (
    BatchValues,
    batch_input_names,
    short_text,
    value_order,
    value_text,
)
from core.inputs import PictureRef
from core.ledger import Ledger


def test_the_values_of_several_jobs_at_once() -> None:
    values = BatchValues.of(
        [
            {"3.seed": 1, "3.cfg": 7, "3.steps": 20},
            {"3.seed": 2, "3.cfg": 7, "3.steps": 30},
            {"3.seed": 3, "3.cfg": 7.0, "3.steps": 20},  # 7.0 is not the 7 every other job sent
        ]
    )
    assert values.jobs == 3
    assert values.varied == {"3.seed", "3.steps", "3.cfg"}
    assert values.shared() == {}
    alike = BatchValues.of([{"3.seed": 1, "3.cfg": 7}, {"3.seed": 2, "3.cfg": 7}])
    assert alike.shared() == {"3.cfg": 7}
    assert alike.columns() == {"3.seed"}
    assert BatchValues.of([]).jobs == 0


PICTURE = PictureRef("ab" * 32, "render_003.png", "/renders/render_003.png", 120).to_param()


def test_a_picture_reads_as_its_file_name_not_as_json() -> None:
    assert value_text(PICTURE) == "render_003.png"
    assert short_text(PICTURE) == "render_003.png"
    assert short_text(PICTURE, limit=8) == "render_…"
    assert value_order(PICTURE) == (1, "render_003.png")
    # A value that only looks like one (a custom node's object) stays JSON.
    assert value_text({"picture": {"file": "x.png"}}) == '{"picture": {"file": "x.png"}}'
    assert value_text("render_003.png") == "render_003.png"


def test_pictures_vary_and_are_shared_as_values_not_names() -> None:
    other = PictureRef("cd" * 32, "render_003.png", "/other/render_003.png", 120).to_param()
    values = BatchValues.of([{"1.image": PICTURE}, {"1.image": other}])
    assert values.varied == {"1.image"}, "two pictures of one name are two values"
    assert BatchValues.of([{"1.image": PICTURE}] * 2).shared() == {"1.image": PICTURE}


def test_a_batch_names_its_inputs_as_its_workflow_does(tmp_path: Path) -> None:
    from tests.core.presets.test_input_names import (
        BASE_PROMPT,
        BASE_SEED,
        REFINER_PROMPT,
        sdxl_grid_batch,
    )

    with Ledger(tmp_path / "home") as ledger:
        batch, ids = sdxl_grid_batch(ledger, tmp_path)
        keys = ledger.job(ids[0]).params
        names = batch_input_names(ledger, batch, keys)
    assert names["6.text"] == BASE_PROMPT
    assert names["15.text"] == REFINER_PROMPT
    assert names["10.noise_seed"] == BASE_SEED
