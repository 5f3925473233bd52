"""Tests for desktop.composer.grid_editor: any number of axes multiply the jobs, a third axis
makes pages, axes that walk together count once."""

from __future__ import annotations

from core.batch import GridAxis


def choose(row, ref: str) -> None:
    row.input.setCurrentIndex(row.input.findData(ref))


def test_grid_of_two_parameters_multiplies_the_jobs(composer) -> None:
    composer.seeds.count.setValue(2)
    composer.grid.setChecked(True)
    x, y = composer.grid.rows
    choose(x, "3.cfg")
    x.line.setText("4, 7.5")
    choose(y, "3.sampler_name")
    y.set_checked(["euler", "dpmpp_2m", "ddim"])
    spec = composer.spec()
    assert spec.grid == (
        GridAxis("3.cfg", (4.0, 7.5)),
        GridAxis("3.sampler_name", ("euler", "dpmpp_2m", "ddim")),
    )
    assert spec.zips == ()
    assert composer.queue_button.text() == "Queue 12 jobs"


def test_a_third_axis_makes_pages(composer) -> None:
    composer.seeds.count.setValue(1)
    grid = composer.grid
    x, y = grid.rows
    choose(x, "3.cfg")
    x.line.setText("4, 7.5")
    choose(y, "3.steps")
    y.line.setText("10, 20, 30")
    third = grid.add_axis()
    assert grid.isChecked()
    assert [row.caption.text() for row in grid.rows] == [
        "X (columns)",
        "Y (rows)",
        "Axis 3 (pages)",
    ]
    choose(third, "3.scheduler")
    third.set_checked(["normal", "karras"])
    assert composer.job_count() == 12
    assert grid.summary.text() == "2 values × 3 values × 2 values = 12 points on 2 pages"
    grid.remove_axis(y)
    assert [row.caption.text() for row in grid.rows] == ["X (columns)", "Y (rows)"]
    assert composer.job_count() == 4


def test_axes_that_walk_together_count_once(composer) -> None:
    composer.seeds.count.setValue(1)
    grid = composer.grid
    grid.setChecked(True)
    sampler, scheduler = grid.rows
    assert not sampler.zip.isVisibleTo(grid)
    choose(sampler, "3.sampler_name")
    sampler.set_checked(["euler", "dpmpp_2m", "ddim"])
    choose(scheduler, "3.scheduler")
    scheduler.set_checked(["normal", "karras", "simple"])
    scheduler.zip.setChecked(True)
    assert scheduler.caption.text() == "X (columns), walking together"
    assert composer.job_count() == 3  # N, not N²
    assert composer.spec().zips == (("3.sampler_name", "3.scheduler"),)
    scheduler.set_checked(["normal", "karras"])
    assert composer.job_count() == 0
    assert "need as many values" in grid.summary.text()
    assert not composer.queue_button.isEnabled()


def test_the_older_x_y_state_is_shown(composer) -> None:
    composer.grid.restore(
        {"on": True, "x": "3.cfg", "x_values": "4, 5", "y": "3.sampler_name", "y_values": "euler"}
    )
    assert composer.spec().grid == (
        GridAxis("3.cfg", (4.0, 5.0)),
        GridAxis("3.sampler_name", ("euler",)),
    )
