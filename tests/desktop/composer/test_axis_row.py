"""Tests for desktop.composer.axis_row: each axis edits its values as fits its input: a
checklist of the servers' values for a list input, text one per line or from a file,
pictures dropped or from a folder."""

from __future__ import annotations

from PySide6.QtCore import Qt

from desktop.composer.axis_row import AxisKind
from tests.desktop.composer.conftest import drop_on, make_pictures
from tests.desktop.helpers import until


def choose(row, ref: str) -> None:
    row.input.setCurrentIndex(row.input.findData(ref))


def test_a_list_input_offers_the_servers_values_as_a_checklist(
    qtbot, qloop, composer, controller, slow_sim
) -> None:
    composer.grid.setChecked(True)
    row = composer.grid.rows[0]
    choose(row, "4.ckpt_name")
    row.set_checked(["mine.safetensors"])  # checked before any server is read: kept

    async def connect() -> None:
        controller.push(server=slow_sim.url)
        await until(lambda: bool(composer.catalogues.catalogues([slow_sim.url])))

    qloop.run_until_complete(connect())
    row = composer.grid.rows[0]  # the form is made again with the server's lists
    assert row.kind is AxisKind.choices
    assert row.checklist.isVisibleTo(row)
    assert not row.line.isVisibleTo(row)  # never a free-text field
    offered = [row.checklist.item(i).text() for i in range(row.checklist.count())]
    assert "sd_xl_base_1.0.safetensors" in offered
    assert offered[-1] == "mine.safetensors"
    item = row.checklist.item(offered.index("sd_xl_base_1.0.safetensors"))
    item.setCheckState(Qt.CheckState.Checked)
    assert set(row.values()) == {"sd_xl_base_1.0.safetensors", "mine.safetensors"}
    assert composer.spec().grid[0].input == "4.ckpt_name"


def test_text_values_one_per_line_or_from_a_file(composer, tmp_path) -> None:
    row = composer.grid.rows[0]
    choose(row, "6.text")
    assert row.kind is AxisKind.texts
    row.texts.setPlainText("a fox\n\n  a heron \n")
    assert row.values() == ("a fox", "a heron")
    listing = tmp_path / "prompts.txt"
    listing.write_text("one\ntwo\nthree\n", encoding="utf-8")
    row.load_file(listing)
    assert row.values() == ("one", "two", "three")
    table = tmp_path / "prompts.csv"
    table.write_text("id,prompt\n1,a cat\n2,a dog\n", encoding="utf-8")
    row.load_file(table, "prompt")
    assert row.values() == ("a cat", "a dog")
    row.load_file(table, "missing")
    assert "has no column 'missing'" in row.error.text()
    assert row.values() == ("a cat", "a dog")  # what was shown stays


def test_pictures_dropped_on_a_picture_axis(img2img, tmp_path) -> None:
    img2img.grid.setChecked(True)
    row = img2img.grid.rows[0]
    choose(row, "10.image")
    assert row.kind is AxisKind.pictures
    make_pictures(tmp_path / "renders", 10)
    assert drop_on(row, [tmp_path / "renders"])
    assert row.count_text() == "10 pictures"
    assert [p.split("/")[-1] for p in row.values()][:3] == [
        "render1.png",
        "render2.png",
        "render3.png",
    ]  # render10 last: natural order
    assert row.values()[-1].endswith("render10.png")
    row.where.setText(str(tmp_path / "renders" / "render1*.png"))
    row.where.editingFinished.emit()
    assert row.count_text() == "2 pictures"


def test_a_folder_without_pictures_says_so(img2img, tmp_path) -> None:
    img2img.grid.setChecked(True)
    row = img2img.grid.rows[0]
    choose(row, "10.image")
    (tmp_path / "empty").mkdir()
    drop_on(row, [tmp_path / "empty"])
    assert "no picture files" in row.error.text()
    assert row.values() == ()


def test_a_numbers_axis_takes_no_drop(composer, tmp_path) -> None:
    composer.grid.setChecked(True)
    row = composer.grid.rows[0]
    choose(row, "3.cfg")
    [picture] = make_pictures(tmp_path, 1)
    assert not drop_on(row, [picture])


def test_a_long_list_is_filtered_and_says_what_is_checked(composer) -> None:
    composer.grid.setChecked(True)
    row = composer.grid.rows[0]
    choose(row, "3.sampler_name")
    row.set_checked(["euler", "ddim"])
    assert row.checked_line.text() == "Checked: euler, ddim"
    row.filter.setText("DPM")
    shown = [
        row.checklist.item(i).text()
        for i in range(row.checklist.count())
        if not row.checklist.item(i).isHidden()
    ]
    assert shown
    assert all("dpm" in name for name in shown)
    assert row.values() == ("euler", "ddim")  # hidden, still checked
