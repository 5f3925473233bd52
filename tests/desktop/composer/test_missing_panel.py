"""Tests for desktop.composer.missing_panel: what the servers lack, at the top of the composer,
with each server's own files to pick from; a pick that changes what is missing rebuilds the
pickers without deleting the one that sent it."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from core.presets import InputRef, Parameter
from core.presets.availability import ChoiceKind, Unlisted
from desktop.composer.missing_panel import MissingFilesPanel

A, B = "http://127.0.0.1:8188", "http://127.0.0.1:8189"
CKPT = Parameter(
    InputRef("4", "ckpt_name"), "Load Checkpoint", "CheckpointLoaderSimple", "COMBO", "gone"
)


def missing(value: str, lacking: tuple[str, ...] = (A,)) -> Unlisted:
    offered = {server: ("base.safetensors", "refiner.safetensors") for server in lacking}
    return Unlisted(CKPT, value, ChoiceKind.model, lacking, (B,), offered)


def test_one_picker_per_missing_file_and_server_and_a_pick_is_told(qtbot) -> None:
    panel = MissingFilesPanel()
    qtbot.addWidget(panel)
    assert panel.isHidden()
    panel.show_missing([missing("gone.safetensors")], {}, [A, B])
    assert not panel.isHidden()
    (picker,) = panel.pickers
    assert picker.accessibleName() == "Instead of gone.safetensors on 127.0.0.1:8188"
    assert picker.toolTip()
    assert picker.itemText(0) == "Instead of gone.safetensors…"
    panel.show_missing([missing("gone.safetensors")], {}, [A, B])
    assert panel.pickers == [picker], "asked again with each edit: kept as it is"

    picks: list[tuple[str, object]] = []

    def picked(ref: str, value: object) -> None:
        picks.append((ref, value))
        panel.show_missing([], {}, [A, B])  # the pick made the field one both servers have

    panel.picked.connect(picked)
    picker.activated.emit(0)
    assert picks == [], "the hint is no file"
    picker.activated.emit(picker.findData("base.safetensors"))
    assert picks == [("4.ckpt_name", "base.safetensors")]
    assert panel.isHidden()
    assert panel.pickers == []
    QApplication.processEvents()  # the old picker goes now, after its signal


def test_a_server_without_files_for_the_input_gets_no_picker(qtbot) -> None:
    panel = MissingFilesPanel()
    qtbot.addWidget(panel)
    bare = Unlisted(CKPT, "gone.safetensors", ChoiceKind.model, (A,), (), {A: ()})
    panel.show_missing([bare], {}, [A])
    assert panel.pickers == []
    assert panel.text().startswith("On 127.0.0.1:8188: model “gone.safetensors”")


def test_it_is_as_tall_as_its_lines_up_to_a_cap_and_never_wider_than_the_pane(qtbot) -> None:
    """In a narrow pane: each line shown whole (no height worked out for another width left
    it collapsed), and past ``MAX_LINES`` it scrolls, the form below keeping its room."""
    from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

    from desktop.composer.missing_panel import MAX_LINES

    pane = QWidget()
    qtbot.addWidget(pane)
    column = QVBoxLayout(pane)
    panel = MissingFilesPanel(pane)
    column.addWidget(panel)
    column.addWidget(QLabel("the form", pane), 1)
    pane.resize(320, 700)
    pane.show()
    qtbot.waitExposed(pane)
    panel.show_missing([missing("gone.safetensors")], {}, [A, B])
    scroll = panel._scroll
    qtbot.waitUntil(lambda: scroll.height() >= scroll.widget().heightForWidth(scroll.width()))
    assert scroll.widget().width() <= scroll.viewport().width()
    many = [missing(f"lora_{i}.safetensors") for i in range(12)]
    panel.show_missing(many, {}, [A, B])
    cap = MAX_LINES * panel.fontMetrics().lineSpacing()
    qtbot.waitUntil(lambda: scroll.height() == cap)
    assert scroll.widget().width() <= scroll.viewport().width()
