"""Story: LoadImage's `image` is a picture field in the composer, the frontend's upload button
never a parameter (nor an axis)."""

from __future__ import annotations

from desktop.composer.picture_field import PictureField


def test_the_picture_shows_as_a_field_and_the_upload_button_not_at_all(img2img) -> None:
    shown = {str(parameter.ref) for parameter, _editor in img2img.parameters_box.editors}
    assert "10.choose file to upload" not in shown
    assert "10.image" not in shown  # not a free-text field
    field = img2img.parameters_box.picture_fields["10.image"]
    assert isinstance(field, PictureField)
    assert field.name.text() == "example.png (on the server)"
    assert field.choose.text() == "Choose…"
    axis_inputs = [img2img.grid.x_input.itemData(i) for i in range(img2img.grid.x_input.count())]
    assert "10.image" in axis_inputs
    assert "10.choose file to upload" not in axis_inputs
