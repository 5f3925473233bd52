"""One axis of the composer's grid: the input it varies and its values, edited as fits the
input: numbers typed, a checklist of the servers' values for a list input (checkpoints,
LoRAs, samplers...), text one per line (or from a .txt file or a CSV column), pictures from
the artist's disk (a folder, files, a drop: one job per picture)."""

from __future__ import annotations

import csv
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.batch.text_lists import MAX_LIST_BYTES, file_values, read_text, typed_values
from core.errors import BatchlineError, CompositionError
from core.inputs.picture_files import picture_paths
from desktop.composer.parameter_editors import narrow, parse_values
from desktop.composer.picture_field import PICTURE_FILTER, dropped_paths

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from PySide6.QtGui import QDragEnterEvent, QDropEvent

    from core.presets import Parameter

_ERROR_STYLE = "color: #a4262c;"


class AxisKind(StrEnum):
    """How an axis's values are edited."""

    numbers = "numbers"  # typed, comma-separated
    choices = "choices"  # a checklist of the servers' values
    texts = "texts"  # one per line
    pictures = "pictures"  # files of the artist's


def axis_kind(parameter: Parameter | None, picture: bool) -> AxisKind:
    if parameter is None:
        return AxisKind.numbers
    if picture:
        return AxisKind.pictures
    if parameter.choices or parameter.type == "COMBO":  # a list on the server, maybe empty here
        return AxisKind.choices
    if isinstance(parameter.value, str):
        return AxisKind.texts
    return AxisKind.numbers


def axis_caption(index: int) -> str:
    """ "X (columns)", "Y (rows)", "Axis 3 (pages)" ..."""
    if index == 0:
        return "X (columns)"
    if index == 1:
        return "Y (rows)"
    return f"Axis {index + 1} (pages)"


class AxisRow(QWidget):
    """An axis: its input, its values, whether it walks together with the axis above.

    Signals:
        changed(): the input, its values or the walk changed.
        remove_wanted(): its Remove button.
    """

    changed = Signal()
    remove_wanted = Signal()

    def __init__(
        self,
        parameters: Sequence[Parameter],
        picture_refs: frozenset[str],
        choices_of: Callable[[Parameter], tuple[Any, ...]],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._parameters = list(parameters)
        self._picture_refs = picture_refs
        self._choices_of = choices_of
        self.pictures: list[Path] = []
        self.picture_source = ""  # the folder, or "" for files chosen or dropped
        self.setAcceptDrops(True)
        self.caption = QLabel(self)
        self.caption.setStyleSheet("font-weight: bold;")
        self.count = QLabel(self)
        self.count.setAccessibleName("Axis count")
        self.input = QComboBox(self)
        narrow(self.input)
        self.input.setAccessibleName("Axis input")
        self.zip = QCheckBox("walk together with the axis above", self)
        self.zip.setToolTip(
            "Value i of this axis goes with value i of the one above (same number of values): "
            "N jobs, not N × N"
        )
        self.remove = QPushButton("Remove", self)
        self.line = QLineEdit(self)  # numbers
        self.line.setPlaceholderText("comma-separated: 4, 6.5, 8")
        self.texts = QPlainTextEdit(self)  # one text per line
        self.texts.setPlaceholderText("one value per line")
        self.texts.setTabChangesFocus(True)
        self.texts.setFixedHeight(self.texts.fontMetrics().lineSpacing() * 4 + 12)
        self.load = QPushButton("From file…", self)
        self.load.setToolTip("Values from a .txt file (one per line) or a column of a .csv file")
        self.filter = QLineEdit(self)
        self.filter.setPlaceholderText("filter the list")
        self.filter.setAccessibleName("Filter the values")
        self.filter.setClearButtonEnabled(True)
        self.checklist = QListWidget(self)
        self.checked_line = QLabel(self)  # what is checked, whatever the list shows
        self.checked_line.setWordWrap(True)
        self.checked_line.setTextFormat(Qt.TextFormat.PlainText)
        self.checklist.setFixedHeight(self.checklist.fontMetrics().lineSpacing() * 6 + 8)
        self.picture_line = QLabel(self)
        self.picture_line.setWordWrap(True)
        self.picture_line.setTextFormat(Qt.TextFormat.PlainText)
        self.choose_files = QPushButton("Pictures…", self)
        self.choose_folder = QPushButton("Folder…", self)
        self.where = QLineEdit(self)
        self.where.setPlaceholderText("or a folder or a glob: ~/renders/*.png")
        self.where.setAccessibleName("Pictures folder or glob")
        self.error = QLabel(self)
        self.error.setWordWrap(True)
        self.error.setStyleSheet(_ERROR_STYLE)
        self.error.setVisible(False)
        self._build()
        self._kind = AxisKind.numbers
        self._list_inputs()
        self.input.currentIndexChanged.connect(self._input_chosen)
        self.zip.toggled.connect(self.changed)
        self.remove.clicked.connect(self.remove_wanted)
        self.line.textChanged.connect(self.changed)
        self.texts.textChanged.connect(self.changed)
        self.checklist.itemChanged.connect(self._item_changed)
        self.filter.textChanged.connect(self._filter)
        self.load.clicked.connect(self.ask_file)
        self.choose_files.clicked.connect(self.ask_pictures)
        self.choose_folder.clicked.connect(self.ask_folder)
        self.where.editingFinished.connect(self._where_typed)
        self._show_kind()

    def _build(self) -> None:
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 4, 0, 4)
        head = QHBoxLayout()
        head.addWidget(self.caption)
        head.addWidget(self.count, 1)
        head.addWidget(self.remove)
        grid.addLayout(head, 0, 0, 1, 2)
        grid.addWidget(self.input, 1, 0, 1, 2)
        grid.addWidget(self.zip, 2, 0, 1, 2)
        grid.addWidget(self.line, 3, 0, 1, 2)
        grid.addWidget(self.texts, 4, 0)
        grid.addWidget(self.load, 4, 1, Qt.AlignmentFlag.AlignTop)
        choices = QVBoxLayout()
        choices.setSpacing(2)
        choices.addWidget(self.filter)
        choices.addWidget(self.checklist)
        choices.addWidget(self.checked_line)
        grid.addLayout(choices, 5, 0, 1, 2)
        pictures = QHBoxLayout()
        pictures.addWidget(self.picture_line, 1)
        pictures.addWidget(self.choose_files)
        pictures.addWidget(self.choose_folder)
        grid.addLayout(pictures, 6, 0, 1, 2)
        grid.addWidget(self.where, 7, 0, 1, 2)
        grid.addWidget(self.error, 8, 0, 1, 2)
        grid.setColumnStretch(0, 1)

    # --- what it varies ------------------------------------------------------------------------

    def _list_inputs(self) -> None:
        self.input.blockSignals(True)
        self.input.clear()
        self.input.addItem("(none)", None)
        for parameter in self._parameters:
            name = parameter.label
            self.input.addItem(name, str(parameter.ref))
        self.input.blockSignals(False)

    def set_parameters(self, parameters: Sequence[Parameter], pictures: frozenset[str]) -> None:
        """Another preset's inputs (the axis is cleared)."""
        self._parameters, self._picture_refs = list(parameters), pictures
        self._list_inputs()
        self.clear()

    def clear(self) -> None:
        """No input, no values, no walk."""
        quiet = (self.input, self.zip, self.line, self.texts, self.where)
        for widget in quiet:
            widget.blockSignals(True)
        self.input.setCurrentIndex(0)
        self.zip.setChecked(False)
        self.line.clear()
        self.texts.clear()
        self.where.clear()
        for widget in quiet:
            widget.blockSignals(False)
        self.pictures, self.picture_source = [], ""
        self._show_kind()

    @property
    def kind(self) -> AxisKind:
        return self._kind

    def parameter(self) -> Parameter | None:
        ref = self.input.currentData()
        return next((p for p in self._parameters if str(p.ref) == ref), None)

    def set_index(self, index: int) -> None:
        """Its place among the rows: the first walks with none."""
        self.zip.setVisible(index > 0)
        if index == 0 and self.zip.isChecked():
            self.zip.setChecked(False)

    def choose(self, ref: str | None) -> None:
        self.input.setCurrentIndex(max(0, self.input.findData(ref)))

    @Slot()
    def _input_chosen(self) -> None:
        self.pictures, self.picture_source = [], ""
        self._show_kind()
        self.changed.emit()

    def _show_kind(self) -> None:
        parameter = self.parameter()
        self._kind = kind = axis_kind(
            parameter, parameter is not None and str(parameter.ref) in self._picture_refs
        )
        self.line.setVisible(parameter is not None and kind is AxisKind.numbers)
        colour = parameter is not None and parameter.colour
        self.line.setPlaceholderText(
            "comma-separated: #FF0000, #3399FF" if colour else "comma-separated: 4, 6.5, 8"
        )
        self.texts.setVisible(kind is AxisKind.texts)
        self.load.setVisible(kind is AxisKind.texts)
        choices: tuple[QWidget, ...] = (self.filter, self.checklist, self.checked_line)
        pictures: tuple[QWidget, ...] = (
            self.picture_line,
            self.choose_files,
            self.choose_folder,
            self.where,
        )
        for widget in choices:
            widget.setVisible(kind is AxisKind.choices)
        for widget in pictures:
            widget.setVisible(kind is AxisKind.pictures)
        if kind is AxisKind.choices and parameter is not None:
            self.offer_choices()
        self._show_pictures()

    def offer_choices(self, keep: Sequence[Any] | None = None) -> None:
        """List the servers' values for the input (those checked stay checked)."""
        parameter = self.parameter()
        if parameter is None or self._kind is not AxisKind.choices:
            return
        checked = list(keep) if keep is not None else self.checked()
        offered = list(self._choices_of(parameter))
        offered += [value for value in checked if value not in offered]  # never dropped
        self.checklist.blockSignals(True)
        self.checklist.clear()
        for value in offered:
            item = QListWidgetItem(str(value), self.checklist)
            item.setData(Qt.ItemDataRole.UserRole, value)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(
                Qt.CheckState.Checked if value in checked else Qt.CheckState.Unchecked
            )
        self.checklist.blockSignals(False)
        self._filter()
        self._show_checked()

    @Slot()
    def _filter(self) -> None:
        wanted = self.filter.text().strip().lower()
        for row in range(self.checklist.count()):
            item = self.checklist.item(row)
            item.setHidden(bool(wanted) and wanted not in item.text().lower())

    def _show_checked(self) -> None:
        checked = [str(value) for value in self.checked()]
        self.checked_line.setText(f"Checked: {', '.join(checked)}" if checked else "None checked")

    def checked(self) -> list[Any]:
        items = (self.checklist.item(row) for row in range(self.checklist.count()))
        return [
            item.data(Qt.ItemDataRole.UserRole)
            for item in items
            if item.checkState() == Qt.CheckState.Checked
        ]

    def set_checked(self, values: Sequence[Any]) -> None:
        self.offer_choices(keep=list(values))
        self.changed.emit()

    @Slot(QListWidgetItem)
    def _item_changed(self, _item: QListWidgetItem) -> None:
        self._show_checked()
        self.changed.emit()

    # --- its values -----------------------------------------------------------------------------

    def values(self) -> tuple[Any, ...]:
        """The values as the spec takes them (pictures: their paths, as text); an error line
        for values that cannot be read (shown under the axis)."""
        parameter = self.parameter()
        if parameter is None:
            return ()
        if self._kind is AxisKind.pictures:
            return tuple(str(path) for path in self.pictures)
        if self._kind is AxisKind.choices:
            return tuple(self.checked())
        if self._kind is AxisKind.texts:
            try:
                return tuple(typed_values(self.texts.toPlainText(), "the list"))
            except CompositionError:  # blank: no values yet
                return ()
        return parse_values(self.line.text(), parameter)

    def count_text(self) -> str:
        count = len(self.values())
        if self._kind is AxisKind.pictures:
            return f"{count} picture{'s' if count != 1 else ''}"
        return f"{count} value{'s' if count != 1 else ''}"

    def show_count(self, error: str = "") -> None:
        self.count.setText("" if self.parameter() is None else f"— {self.count_text()}")
        self.error.setText(error)
        self.error.setVisible(bool(error))

    def set_pictures(self, paths: Sequence[Path], source: str = "") -> None:
        self.pictures, self.picture_source = list(paths), source
        self._show_pictures()
        self.changed.emit()

    def take_dropped(self, paths: Sequence[Path]) -> None:
        """A drop of a folder (its pictures) or of files (these, folders opened)."""
        try:
            if len(paths) == 1 and paths[0].is_dir():
                self.set_pictures(picture_paths(paths[0]), str(paths[0]))
                return
            found: list[Path] = []
            for path in paths:
                found += picture_paths(path) if path.is_dir() else [path]
        except BatchlineError as exc:
            self.show_count(str(exc))
            return
        self.set_pictures(found)

    @Slot()
    def _where_typed(self) -> None:
        text = self.where.text().strip()
        if not text or text == self.picture_source:
            return
        try:
            found = picture_paths(text)
        except BatchlineError as exc:
            self.show_count(str(exc))
            return
        self.set_pictures(found, text)

    def _show_pictures(self) -> None:
        if self._kind is not AxisKind.pictures:
            return
        if not self.pictures:
            self.picture_line.setText("Drop a folder or pictures here, or choose them")
            return
        first = ", ".join(path.name for path in self.pictures[:3])
        more = ", …" if len(self.pictures) > 3 else ""
        where = f"{self.picture_source}: " if self.picture_source else ""
        self.picture_line.setText(f"{where}{first}{more}")
        self.picture_line.setToolTip("\n".join(str(path) for path in self.pictures[:40]))

    @Slot()
    def ask_pictures(self) -> None:
        chosen, _ = QFileDialog.getOpenFileNames(self, "Pictures, one job each", "", PICTURE_FILTER)
        if chosen:
            self.take_dropped([Path(name) for name in chosen])

    @Slot()
    def ask_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "A folder of pictures, one job each")
        if folder:
            self.take_dropped([Path(folder)])

    @Slot()
    def ask_file(self) -> None:
        name, _ = QFileDialog.getOpenFileName(
            self, "Values, one per line", "", "Lists (*.txt *.csv);;All files (*)"
        )
        if name:
            self.load_file(Path(name))

    def load_file(self, path: Path, column: str | int | None = None) -> None:
        """Show the values of a .txt file or of a CSV column (asked when not given)."""
        try:
            if path.suffix.lower() == ".csv" and column is None:
                column = self._ask_column(path)
                if column is None:
                    return
            values = file_values(path, column)
        except BatchlineError as exc:
            self.show_count(str(exc))
            return
        self.texts.setPlainText("\n".join(values))

    def _ask_column(self, path: Path) -> str | None:
        header = file_values_header(path)
        column, ok = QInputDialog.getItem(self, "CSV column", f"Column of {path.name}:", header)
        return column if ok else None

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self._kind is AxisKind.pictures and dropped_paths(event.mimeData()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = dropped_paths(event.mimeData())
        if self._kind is not AxisKind.pictures or not paths:
            event.ignore()
            return
        event.acceptProposedAction()
        self.take_dropped(paths)

    # --- memory ---------------------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        return {
            "input": self.input.currentData(),
            "zip": self.zip.isChecked(),
            "numbers": self.line.text(),
            "texts": self.texts.toPlainText(),
            "checked": self.checked(),
            "pictures": [str(path) for path in self.pictures],
            "picture_source": self.picture_source,
        }

    def restore(self, state: dict[str, Any]) -> None:
        self.choose(state.get("input"))
        self.zip.setChecked(bool(state.get("zip")))
        self.line.setText(str(state.get("numbers") or ""))
        self.texts.setPlainText(str(state.get("texts") or ""))
        if self._kind is AxisKind.choices:
            self.offer_choices(keep=list(state.get("checked") or ()))
        pictures = [Path(str(path)) for path in state.get("pictures") or ()]
        self.set_pictures(pictures, str(state.get("picture_source") or ""))


def file_values_header(path: Path) -> list[str]:
    """The names in a CSV file's header row (the first line), to choose a column from."""
    text = read_text(path, MAX_LIST_BYTES)
    first = next(csv.reader(text.splitlines()[:1]), [])
    if not first:
        raise CompositionError(f"{path} is empty")
    return [name.strip() for name in first]
