"""Editors fitting a workflow parameter's type and range, and reading values back from them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, Qt, Slot
from PySide6.QtGui import QFont, QTextLayout, QTextOption
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QLineEdit,
    QPlainTextEdit,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QWidget,
)

from desktop.composer.colour_box import WHITE, ColourBox

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance
    from PySide6.QtGui import QResizeEvent

    from core.presets import Parameter

INT_LIMIT = 2**31 - 1  # QSpinBox holds a C int
LONG_TEXT_INPUTS = frozenset({"text", "prompt", "positive", "negative"})


def make_editor(parameter: Parameter, parent: QWidget | None = None) -> QWidget:
    """A widget showing the parameter's current value, limited to its range and choices."""
    value = parameter.value
    if parameter.choices:
        editor: QWidget = _combo(parameter, parent)
    elif isinstance(value, bool):
        editor = QCheckBox(parent)
        editor.setChecked(value)
    elif isinstance(value, int) and parameter.colour and 0 <= value <= WHITE:
        editor = ColourBox(value, parent)
        editor.setKeyboardTracking(False)
    elif isinstance(value, int) and abs(value) <= INT_LIMIT:
        editor = _int_box(parameter, parent)
    elif isinstance(value, float):
        editor = _float_box(parameter, parent)
    elif isinstance(value, str) and (parameter.ref.input in LONG_TEXT_INPUTS or "\n" in value):
        editor = PromptEdit(value, parent)
    else:
        editor = QLineEdit(str(value), parent)
    editor.setAccessibleName(parameter.label)
    editor.setToolTip(default_tooltip(parameter))
    return editor


def default_tooltip(parameter: Parameter) -> str:
    return f"{parameter.class_type} node {parameter.ref}"


class PromptEdit(QPlainTextEdit):
    """A text box that grows with its text, from 3 lines up to 12, then scrolls; Tab moves
    on to the next field."""

    MIN_LINES, MAX_LINES = 3, 12

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setTabChangesFocus(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # it wraps
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMinimumWidth(120)
        self.textChanged.connect(self._typed)
        self.fit()

    @Slot()
    def _typed(self) -> None:
        self.fit()
        relayout_now(self)  # the fields below move with it as it grows, not an event later

    def fit(self) -> None:
        """Height for the lines the text takes at the current width, within the limits.

        The lines are laid out here as the document lays them out, not read from its layout:
        that one is made lazily, and for a text set before the box had its width (a preset's
        prompt) it still held the old width's lines, so the box stayed short and scrolled."""
        margin = self.document().documentMargin()
        # as QPlainTextDocumentLayout does, at the width without a vertical scrollbar
        width = self.contentsRect().width() - 2 * margin - self.cursorWidth()
        option = QTextOption()
        option.setWrapMode(self.wordWrapMode())
        paragraphs = self.toPlainText().split("\n")
        lines = sum(_line_count(p, self.font(), option, width) for p in paragraphs)
        lines = max(self.MIN_LINES, min(self.MAX_LINES, lines))
        margins = self.contentsMargins()
        # + 1: QPlainTextEdit scrolls unless a pixel is left below the last line
        chrome = margins.top() + margins.bottom() + 2 * margin + 1
        height = int(lines * self.fontMetrics().lineSpacing() + chrome)
        if height != self.minimumHeight() or height != self.maximumHeight():
            self.setFixedHeight(height)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit()  # the text wraps anew at another width


def relayout_now(widget: QWidget) -> None:
    """Lay out the widget's parents again now, not when the event loop next runs: a box that
    grew while the artist typed stood over the label below it until then. Each parent, from
    the nearest, takes the layout request its layout (and a scroll area's filter) acts on."""
    parent = widget.parentWidget()
    while parent is not None and parent.isVisible() and not parent.isWindow():
        QApplication.sendEvent(parent, QEvent(QEvent.Type.LayoutRequest))
        if isinstance(parent, QScrollArea) and parent.widgetResizable():
            parent.setWidgetResizable(True)  # fits its contents to their new minimum now
        parent = parent.parentWidget()


def _line_count(text: str, font: QFont, option: QTextOption, width: float) -> int:
    layout = QTextLayout(text, font)
    layout.setTextOption(option)
    layout.beginLayout()
    count = 0
    while (line := layout.createLine()).isValid():
        line.setLineWidth(max(1.0, width))
        count += 1
    layout.endLayout()
    return max(1, count)


def editor_value(editor: QWidget, parameter: Parameter) -> Any:
    """The value the editor holds, of the parameter's type."""
    if isinstance(editor, QComboBox):
        return editor.currentData()
    if isinstance(editor, QCheckBox):
        return editor.isChecked()
    if isinstance(editor, QSpinBox | QDoubleSpinBox):
        return editor.value()
    if isinstance(editor, QPlainTextEdit):
        return editor.toPlainText()
    if isinstance(editor, QLineEdit):
        return _typed(editor.text(), parameter.value)
    raise TypeError(f"no value for {type(editor).__name__}")


def differs(editor: QWidget, parameter: Parameter) -> bool:
    """Whether the editor holds another value than the parameter's own: a number box shows
    the preset's 0.8700000000000001 as 0.870, which is no change of the artist's."""
    value = editor_value(editor, parameter)
    own = parameter.value
    if isinstance(editor, QDoubleSpinBox) and isinstance(own, int | float):
        shown_step = 0.5 * 10.0 ** -editor.decimals()
        return abs(float(value) - float(own)) >= shown_step
    return bool(value != own)


def set_editor_value(editor: QWidget, parameter: Parameter, value: Any) -> None:
    """Show `value` (as `editor_value` returns it) in the editor; a value it cannot hold is
    left out (a choice the workflow no longer offers)."""
    if isinstance(editor, QComboBox):
        index = editor.findData(value)
        if index >= 0:
            editor.setCurrentIndex(index)
    elif isinstance(editor, QCheckBox):
        editor.setChecked(bool(value))
    elif isinstance(editor, QSpinBox) and isinstance(value, int):
        editor.setValue(value)
    elif isinstance(editor, QDoubleSpinBox) and isinstance(value, int | float):
        editor.setValue(float(value))
    elif isinstance(editor, QPlainTextEdit):
        editor.setPlainText(str(value))
    elif isinstance(editor, QLineEdit):
        editor.setText(str(value))


def edited_signal(editor: QWidget) -> SignalInstance:
    """The editor's signal emitted on each change of its value."""
    if isinstance(editor, QComboBox):
        return editor.currentIndexChanged
    if isinstance(editor, QCheckBox):
        return editor.toggled
    if isinstance(editor, QSpinBox | QDoubleSpinBox):
        return editor.valueChanged
    if isinstance(editor, QPlainTextEdit | QLineEdit):
        return editor.textChanged
    raise TypeError(f"no change signal for {type(editor).__name__}")


def parse_values(text: str, parameter: Parameter) -> tuple[Any, ...]:
    """Grid values typed by the artist: comma-separated, or `|`-separated for text inputs."""
    separator = "|" if isinstance(parameter.value, str) and not parameter.choices else ","
    parts = [part.strip() for part in text.split(separator) if part.strip()]
    # what is not of the input's type stays text: composing converts "#FF0000" for a colour
    # input, or refuses the value, naming it
    return tuple(_typed(part, parameter.value) for part in parts)


def _typed(text: str, like: Any) -> Any:
    try:
        if isinstance(like, bool):
            return text.lower() in ("1", "true", "yes", "on")
        if isinstance(like, int):
            return int(text)
        if isinstance(like, float):
            return float(text)
    except ValueError:
        return text
    return text


def _combo(parameter: Parameter, parent: QWidget | None) -> QComboBox:
    combo = QComboBox(parent)
    narrow(combo)
    choices = list(parameter.choices)
    if parameter.value not in choices:  # kept as it is, never silently replaced
        choices.insert(0, parameter.value)
    for choice in choices:
        combo.addItem(str(choice), choice)
    combo.setCurrentIndex(choices.index(parameter.value))
    return combo


def _int_box(parameter: Parameter, parent: QWidget | None) -> QSpinBox:
    box = QSpinBox(parent)
    box.setRange(_clamp(parameter.minimum, -INT_LIMIT), _clamp(parameter.maximum, INT_LIMIT))
    if isinstance(parameter.step, int) and parameter.step > 0:
        box.setSingleStep(parameter.step)
    box.setValue(int(parameter.value))
    _arrows_and_tracking(box)
    return box


def _float_box(parameter: Parameter, parent: QWidget | None) -> QDoubleSpinBox:
    box = QDoubleSpinBox(parent)
    low = parameter.minimum if parameter.minimum is not None else -1e9
    high = parameter.maximum if parameter.maximum is not None else 1e9
    box.setDecimals(3)
    box.setRange(float(low), float(high))
    step = parameter.step if parameter.step else 0.1
    box.setSingleStep(float(step))
    box.setValue(float(parameter.value))
    _arrows_and_tracking(box)
    return box


def narrow(combo: QComboBox) -> None:
    """A combo box that never widens the form past the pane: long names are elided, and the
    list it opens is as wide as they are."""
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(12)
    combo.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)


def _clamp(value: int | float | None, default: int) -> int:
    if value is None:
        return default
    return int(max(-INT_LIMIT, min(INT_LIMIT, value)))


def _arrows_and_tracking(box: QAbstractSpinBox) -> None:
    box.setButtonSymbols(QAbstractSpinBox.ButtonSymbols.UpDownArrows)
    box.setKeyboardTracking(False)
