"""Tests for desktop.composer.grid_editor: an X/Y grid of two parameters multiplies the jobs."""

from __future__ import annotations

from core.batch import GridAxis


def test_grid_of_two_parameters_multiplies_the_jobs(composer) -> None:
    composer.seeds.count.setValue(2)
    composer.grid.setChecked(True)
    composer.grid.x_input.setCurrentIndex(composer.grid.x_input.findData("3.cfg"))
    composer.grid.x_values.setText("4, 7.5")
    composer.grid.y_input.setCurrentIndex(composer.grid.y_input.findData("3.sampler_name"))
    composer.grid.y_values.setText("euler, dpmpp_2m, ddim")
    spec = composer.spec()
    assert spec.grid == (
        GridAxis("3.cfg", (4.0, 7.5)),
        GridAxis("3.sampler_name", ("euler", "dpmpp_2m", "ddim")),
    )
    assert composer.queue_button.text() == "Queue 12 jobs"
