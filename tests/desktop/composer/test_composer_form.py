"""Tests for desktop.composer.composer_form: the form fits the pane and Tab walks it in order."""

from __future__ import annotations

from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QCheckBox, QLabel, QWidget

from desktop.composer.batch_composer import BatchComposerWidget


def shown_composer(qtbot, ledger, controller, preset_name, width=380):
    composer = BatchComposerWidget(ledger, controller)
    qtbot.addWidget(composer)
    composer.set_preset(preset_name)
    composer.grid.setChecked(True)
    composer.resize(width, 700)
    composer.show()
    qtbot.waitExposed(composer)
    return composer


def test_nothing_is_cut_off_on_the_right(qtbot, ledger, controller, preset_name) -> None:
    composer = shown_composer(qtbot, ledger, controller, preset_name)
    prompt = composer.parameters_box.editor("6.text")
    prompt.setPlainText("a very long prompt without any line break " * 20)
    viewport = composer.form_scroll.viewport()
    qtbot.waitUntil(lambda: composer.form_scroll.widget().width() <= viewport.width())
    cut = [
        widget.accessibleName() or type(widget).__name__
        for widget in composer.form_scroll.widget().findChildren(QWidget)
        if widget.isVisible()
        and widget.mapTo(viewport, QPoint(widget.width(), 0)).x() > viewport.width()
    ]
    assert cut == []


def test_tab_walks_the_form_top_to_bottom(qtbot, ledger, controller, preset_name) -> None:
    composer = shown_composer(qtbot, ledger, controller, preset_name)
    chain, widget = [], composer.reset_button
    while widget not in chain:
        chain.append(widget)
        widget = widget.nextInFocusChain()
    positive = composer.parameters_box.editor("6.text")
    steps = composer.parameters_box.editor("3.steps")
    order = [composer.seeds.count, positive, steps, composer.grid.x_input, composer.requester]
    assert [chain.index(w) for w in order] == sorted(chain.index(w) for w in order)
    assert chain.index(composer.queue_button) > chain.index(composer.priority)


def test_an_sdxl_base_and_refiner_reads_as_one_name_per_input(
    qtbot, ledger, controller, tmp_path
) -> None:
    """The composer's door: labels, axis choices, the seed list and "Varies" all name each
    input as core.presets.input_names does, the refiner's prompt apart from the base's."""
    from tests.core.presets.test_input_names import (
        BASE_PROMPT,
        BASE_SEED,
        REFINER_PROMPT,
        store_sdxl,
    )

    composer = shown_composer(qtbot, ledger, controller, store_sdxl(ledger, tmp_path))
    labels = [label.text() for label in composer.parameters_box.findChildren(QLabel)]
    assert labels.count(BASE_PROMPT) == labels.count(REFINER_PROMPT) == 1, labels
    assert "Positive prompt · text" not in labels
    assert composer.parameters_box.editor("6.text").accessibleName() == BASE_PROMPT
    axis = composer.grid.x_input
    choices = {axis.itemData(i): axis.itemText(i) for i in range(axis.count())}
    assert (choices["6.text"], choices["15.text"]) == (BASE_PROMPT, REFINER_PROMPT)
    varies = {check.text(): check for check in composer.seeds.inputs_box.findChildren(QCheckBox)}
    assert BASE_SEED in varies, list(varies)
    assert varies[BASE_SEED].toolTip().startswith("10.noise_seed"), "the id, as the CLI takes it"


def test_a_growing_prompt_never_overlaps_the_next_label(qtbot, ledger, controller, preset_name):
    """Typing line after line into a prompt: the fields below move down with it at once (the
    box grew before the form was laid out again, over the next label, until the event loop
    caught up)."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    composer = shown_composer(qtbot, ledger, controller, preset_name)
    form = composer.parameters_box
    prompt, below = form.editor("6.text"), form.editor("7.text")
    label = next(w for w in form.findChildren(QLabel) if w.buddy() is below)

    def gap() -> int:
        top = label.mapTo(form, QPoint(0, 0)).y()
        return top - prompt.mapTo(form, QPoint(0, prompt.height())).y()

    prompt.setFocus()
    qtbot.keyClicks(prompt, "a fox, ")
    qtbot.waitUntil(lambda: gap() >= 0)  # the first layouts, at the pane's width
    for line in range(14):
        qtbot.keyClicks(prompt, f"line {line}")
        qtbot.keyClick(prompt, Qt.Key.Key_Return)
        QApplication.processEvents()
        assert gap() >= 0, f"line {line}: the prompt runs {-gap()} px over the label below"
    assert prompt.height() > 10 * prompt.fontMetrics().lineSpacing(), "it grew"


def test_long_labels_are_whole_at_a_laptops_pane_width(qtbot, ledger, controller, tmp_path) -> None:
    """At 1366x768 the composer pane is about 380 px: a long label ("KSampler (Advanced) -
    BASE · add_noise") goes above its field, wrapped between words, never cut."""
    from tests.core.presets.test_input_names import store_sdxl

    composer = shown_composer(qtbot, ledger, controller, store_sdxl(ledger, tmp_path))
    cut = []
    for label in composer.parameters_box.findChildren(QLabel):
        if not label.isVisible() or not label.text():
            continue
        metrics = label.fontMetrics()
        widest_word = max(metrics.horizontalAdvance(word) for word in label.text().split())
        if label.height() < label.heightForWidth(label.width()) or label.width() < widest_word:
            cut.append(f"{label.text()!r} {label.size().toTuple()}")
    assert cut == []
