"""Tests for desktop.composer.picture_inputs: LoadImage's `image` is a picture field, the
frontend's upload button never a parameter (nor an axis)."""

from __future__ import annotations

from core.catalogue import Catalogue
from core.presets.model import InputRef, Parameter
from desktop.composer.picture_field import PictureField
from desktop.composer.picture_inputs import is_upload_button


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


def test_a_real_input_named_upload_is_kept() -> None:
    raw = {
        "Uploader": {
            "input": {
                "required": {
                    "image": [["a.png"], {"image_upload": True}],
                    "upload": ["STRING", {}],
                }
            }
        },
        "LoadImage": {"input": {"required": {"image": [["a.png"], {"image_upload": True}]}}},
    }
    catalogue = Catalogue.from_object_info(raw)
    own = Parameter(InputRef("1", "upload"), "Uploader", "Uploader", "STRING", "yes")
    button = Parameter(InputRef("2", "upload"), "Load Image", "LoadImage", "STRING", "image")
    assert not is_upload_button(own, catalogue)
    assert is_upload_button(button, catalogue)
