"""Tests for desktop.composer.picture_field: a picture chosen or dropped on the field shows
with its thumbnail; a folder or several files dropped make one job per picture."""

from __future__ import annotations

from pathlib import Path

from desktop.composer.picture_field import PictureField
from tests.desktop.composer.conftest import drop_on, make_pictures


def field_of(qtbot) -> PictureField:
    field = PictureField("example.png")
    qtbot.addWidget(field)
    return field


def test_a_picture_dropped_on_the_field_is_its_value(qtbot, tmp_path) -> None:
    field = field_of(qtbot)
    [picture] = make_pictures(tmp_path, 1)
    with qtbot.waitSignal(field.changed):
        assert drop_on(field, [picture])
    assert field.path == picture
    assert field.name.text() == "render1.png"
    assert not field.thumb.pixmap().isNull()
    assert max(field.thumb.pixmap().width(), field.thumb.pixmap().height()) == 48


def test_a_folder_or_several_files_ask_for_an_axis(qtbot, tmp_path) -> None:
    field = field_of(qtbot)
    pictures = make_pictures(tmp_path / "renders", 2)
    with qtbot.waitSignal(field.axis_wanted) as folder:
        drop_on(field, [tmp_path / "renders"])
    assert folder.args == [[str(tmp_path / "renders")]]
    with qtbot.waitSignal(field.axis_wanted) as files:
        drop_on(field, pictures)
    assert files.args == [[str(p) for p in pictures]]
    assert field.path is None  # the field itself is left as it was


def test_a_drag_without_files_is_refused(qtbot) -> None:
    field = field_of(qtbot)
    assert not drop_on(field, [])
    assert field.path is None


def test_a_file_that_is_no_picture_shows_without_thumbnail(qtbot, tmp_path) -> None:
    field = field_of(qtbot)
    text = tmp_path / "notes.png"
    text.write_text("not a picture")
    field.set_path(Path(text))
    assert field.thumb.text() == "?"
    assert field.name.text() == "notes.png"


def test_a_field_an_axis_varies_says_so(img2img, tmp_path) -> None:
    make_pictures(tmp_path / "renders", 3)
    field = img2img.parameters_box.picture_fields["10.image"]
    drop_on(field, [tmp_path / "renders"])
    assert field.name.text() == "one per job, from the axis X"
    assert not field.choose.isEnabled()
    img2img.grid.remove_axis(img2img.grid.rows[0])
    assert field.name.text() == "example.png (on the server)"
    assert field.choose.isEnabled()
