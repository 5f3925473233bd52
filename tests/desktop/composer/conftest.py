"""Fixtures shared by this folder's test files: the composer on a stored preset."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QWidget

from core.ledger import PresetContent
from core.presets import workflow_hash
from desktop.composer.batch_composer import BatchComposerWidget
from desktop.presets.preset_files import add_preset_file


@pytest.fixture
def composer(qtbot, ledger, controller, preset_name):
    composer = BatchComposerWidget(ledger, controller)
    qtbot.addWidget(composer)
    composer.set_preset(preset_name)
    return composer


# A workflow without a seed input: a plain picture of one colour (EmptyImage's ``color``, an
# integer ComfyUI shows as a colour), saved.
SEEDLESS = {
    "1": {
        "class_type": "EmptyImage",
        "inputs": {"width": 64, "height": 64, "batch_size": 1, "color": 0x3399FF},
    },
    "2": {"class_type": "SaveImage", "inputs": {"images": ["1", 0], "filename_prefix": "plain"}},
}


@pytest.fixture
def plain_name(ledger) -> str:
    """The stored preset "plain" of ``SEEDLESS``."""
    ledger.presets.add("plain", PresetContent(workflow_hash(SEEDLESS), SEEDLESS))
    return "plain"


IMG2IMG = Path(__file__).parents[2] / "data" / "golden-pairs" / "img2img_img2img_workflow.json"


@pytest.fixture
def img2img_name(ledger, tmp_path) -> str:
    """A stored image-to-image preset: LoadImage `10.image` (and the frontend's bogus
    "choose file to upload" input beside it), KSampler `3`, prompts `6` and `7`."""
    path = tmp_path / "img2img.json"
    path.write_text(json.dumps(json.loads(IMG2IMG.read_text())["prompt"]), encoding="utf-8")
    result = add_preset_file(ledger, path)
    assert result.name, result.error
    return result.name


@pytest.fixture
def img2img(qtbot, ledger, controller, img2img_name):
    composer = BatchComposerWidget(ledger, controller)
    qtbot.addWidget(composer)
    composer.set_preset(img2img_name)
    composer.seeds.count.setValue(1)  # one job per grid point
    return composer


def make_pictures(folder: Path, count: int, stem: str = "render") -> list[Path]:
    """``count`` small real PNG files, each with its own colour."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for index in range(count):
        path = folder / f"{stem}{index + 1}.png"
        Image.new("RGB", (16, 12), (index * 20 % 256, 80, 160)).save(path)
        paths.append(path)
    return paths


def drop_on(widget: QWidget, paths: list[Path]) -> bool:
    """Drag ``paths`` over ``widget`` and drop them (as a file manager does); whether the
    drag was accepted."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path)) for path in paths])
    enter = QDragEnterEvent(
        QPoint(5, 5),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(widget, enter)
    if not enter.isAccepted():
        return False
    drop = QDropEvent(
        QPointF(5, 5),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(widget, drop)
    return drop.isAccepted()
