"""The mouse wheel over the composer scrolls the form; it changes only a focused field."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QWidget

from desktop.composer.batch_composer import BatchComposerWidget


def wheel(widget: QWidget, notches: int) -> None:
    """Real wheel notches over the middle of `widget`, delivered as the window system does."""
    centre = QPointF(widget.rect().center())
    event = QWheelEvent(
        centre,
        QPointF(widget.mapToGlobal(centre.toPoint())),
        QPoint(),
        QPoint(0, -120 * notches),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(widget, event)


def test_wheel_over_unfocused_fields_scrolls_the_form(qtbot, ledger, controller, preset_name):
    composer = BatchComposerWidget(ledger, controller)
    qtbot.addWidget(composer)
    composer.set_preset(preset_name)
    composer.resize(420, 320)
    composer.show()
    composer.activateWindow()
    qtbot.waitActive(composer)
    cfg = composer.parameters_box.editor("3.cfg")
    composer.form_scroll.ensureWidgetVisible(cfg)
    bar = composer.form_scroll.verticalScrollBar()
    bar.setValue(bar.minimum() + (bar.maximum() - bar.minimum()) // 2)
    before, at = cfg.value(), bar.value()
    composer.queue_button.setFocus()
    for field in (cfg, composer.grid.x_input, composer.seeds.count):
        wheel(field, 3)
    assert cfg.value() == before
    assert composer.grid.x_input.currentIndex() == 0
    assert composer.seeds.count.value() == 40
    assert bar.value() > at, "the form scrolled instead"
    cfg.setFocus()
    qtbot.waitUntil(cfg.hasFocus)
    wheel(cfg, 1)
    assert cfg.value() != before, "a focused field still takes the wheel"
