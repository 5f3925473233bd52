"""Tests for desktop.composer.parameter_editors: prompt boxes that grow with their text and wrap."""

from __future__ import annotations

import json

from desktop.composer.batch_composer import BatchComposerWidget
from desktop.composer.parameter_editors import PromptEdit
from desktop.presets.preset_files import add_preset_file
from tests.desktop.conftest import TXT2IMG


def shown_composer(qtbot, ledger, controller, preset_name, width=380):
    composer = BatchComposerWidget(ledger, controller)
    qtbot.addWidget(composer)
    composer.set_preset(preset_name)
    composer.grid.setChecked(True)
    composer.resize(width, 700)
    composer.show()
    qtbot.waitExposed(composer)
    return composer


def test_prompts_span_the_pane_and_grow_with_their_text(
    qtbot, ledger, controller, preset_name
) -> None:
    composer = shown_composer(qtbot, ledger, controller, preset_name, width=600)
    prompt = composer.parameters_box.editor("6.text")
    assert isinstance(prompt, PromptEdit)
    assert prompt.width() > composer.parameters_box.width() * 0.8, "the whole width"
    prompt.setPlainText("one line")
    short = prompt.height()
    prompt.setPlainText("\n".join(f"line {n}" for n in range(8)))
    assert prompt.height() > short * 2
    prompt.setPlainText("\n".join(f"line {n}" for n in range(100)))
    tallest = prompt.height()
    assert tallest < 14 * prompt.fontMetrics().lineSpacing(), "then it scrolls"
    assert prompt.verticalScrollBar().maximum() > 0


def test_a_long_prompt_in_the_preset_shows_whole_and_wrapped(
    qtbot, ledger, controller, tmp_path
) -> None:
    """The prompt comes with the preset, before the box has its width: it still wraps at the
    box's width (no sideways scrollbar) and the box is as tall as its lines."""
    workflow = json.loads(TXT2IMG.read_text())
    workflow["6"]["inputs"]["text"] = LONG_PROMPT
    path = tmp_path / "Long prompt.json"
    path.write_text(json.dumps(workflow))
    name = add_preset_file(ledger, path).name
    assert name
    composer = shown_composer(qtbot, ledger, controller, name)
    prompt = composer.parameters_box.editor("6.text")
    assert isinstance(prompt, PromptEdit)
    qtbot.wait(50)
    assert not prompt.horizontalScrollBar().isVisible()
    assert prompt.verticalScrollBar().maximum() == 0, "tall enough for every line"


LONG_PROMPT = (
    "a bottle with a beautiful rainbow galaxy inside it on top of a wooden table in the middle "
    "of a modern kitchen beside a plate of vegetables and mushrooms and a wine glasse that "
    "contains a planet earth with a plate with a half eaten apple pie on it"
)


def test_a_float_shown_rounded_is_no_change(qtbot) -> None:
    """0.8700000000000001 (as a workflow stores it) shows as 0.870: not a value the artist
    changed, so the job keeps the workflow's own and the preset is not marked edited."""
    from core.presets import InputRef, Parameter
    from desktop.composer.parameter_editors import differs, make_editor

    parameter = Parameter(InputRef("3", "denoise"), "KSampler", "KSampler", "FLOAT", 0.87 + 1e-16)
    editor = make_editor(parameter)
    qtbot.addWidget(editor)
    assert not differs(editor, parameter)
    editor.setValue(0.86)
    assert differs(editor, parameter)
