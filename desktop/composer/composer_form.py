"""The composer's parameters: one editor per literal input, prompts as full-width text boxes."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import QComboBox, QFormLayout, QGroupBox, QLabel, QWidget

from core.presets.availability import unlisted_by_server
from desktop.composer.composer_notice import unlisted_tooltip
from desktop.composer.parameter_editors import (
    PromptEdit,
    default_tooltip,
    differs,
    edited_signal,
    editor_value,
    make_editor,
    set_editor_value,
)
from desktop.composer.picture_field import PictureField

if TYPE_CHECKING:
    from core.catalogue import Catalogue
    from core.presets import Parameter
    from core.presets.availability import Unlisted

_UNLISTED_STYLE = "border: 2px solid #c42b1c; color: #a4262c;"
# A label wider than this many average characters goes above its field (the whole width,
# wrapped between words): beside it, squeezed into the label column, it was cut mid-word
# ("Empty Latent / Image · batch_si", seen at 1366x768 with an SDXL base+refiner workflow).
_BESIDE_CHARS = 22


class ParameterForm(QGroupBox):
    """The editable parameters of a preset, labels above fields when the pane is narrow.

    Signals:
        edited(): a value changed (a picture chosen included).
        picture_axis_wanted(str, list): a folder or several files were dropped on picture
            input ``NODE.INPUT``: their paths, for one job per picture.
    """

    edited = Signal()
    picture_axis_wanted = Signal(str, list)

    def __init__(self, parent: Any = None) -> None:
        super().__init__("Parameters", parent)
        self._form = QFormLayout(self)
        self._form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self._form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.editors: list[tuple[Parameter, QWidget]] = []
        self.picture_fields: dict[str, PictureField] = {}
        self._picture_parameters: dict[str, Parameter] = {}

    def set_parameters(
        self, parameters: list[Parameter], pictures: frozenset[str] = frozenset()
    ) -> None:
        """One editor per parameter; those of ``pictures`` (``NODE.INPUT``) take a picture
        from the artist's disk."""
        while self._form.rowCount():
            self._form.removeRow(0)
        self.editors = []
        self.picture_fields = {}
        self._picture_parameters = {}
        for parameter in parameters:
            if str(parameter.ref) in pictures:
                self._add_picture_field(parameter)
                continue
            editor = make_editor(parameter, self)
            label = _label(parameter.label, self)
            label.setBuddy(editor)
            if isinstance(editor, PromptEdit) or _long(label):  # its label above, whole
                self._form.addRow(label)
                self._form.addRow(editor)
            else:
                self._form.addRow(label, editor)
            self.editors.append((parameter, editor))
            edited_signal(editor).connect(self.edited)

    def _add_picture_field(self, parameter: Parameter) -> None:
        ref = str(parameter.ref)
        field = PictureField(str(parameter.value), self)
        field.setAccessibleName(parameter.label)
        label = _label(parameter.label, self)
        label.setBuddy(field.choose)
        if _long(label):
            self._form.addRow(label)
            self._form.addRow(field)
        else:
            self._form.addRow(label, field)
        self.picture_fields[ref] = field
        self._picture_parameters[ref] = parameter
        field.changed.connect(self.edited)
        field.axis_wanted.connect(self._axis_wanted)
        field.setProperty("ref", ref)

    @Slot(list)
    def _axis_wanted(self, paths: list[str]) -> None:
        field = self.sender()
        if isinstance(field, PictureField):
            self.picture_axis_wanted.emit(str(field.property("ref")), paths)

    def pictures(self) -> dict[str, str]:
        """The pictures chosen (``NODE.INPUT -> path``), for the inputs not left as they are."""
        return {ref: str(f.path) for ref, f in self.picture_fields.items() if f.path is not None}

    def show_pictures(self, pictures: dict[str, Any]) -> None:
        for ref, field in self.picture_fields.items():
            path = pictures.get(ref)
            field.set_path(Path(str(path)) if path else None)

    def editor(self, ref: str) -> QWidget:
        """The editor of the input `NODE_ID.INPUT`."""
        return next(editor for parameter, editor in self.editors if str(parameter.ref) == ref)

    def label_of(self, editor: QWidget) -> str:
        label = next(w for w in self.findChildren(QLabel) if w.buddy() is editor)
        return label.text()

    def changed_values(self) -> dict[str, Any]:
        """The values that differ from the preset's, keyed `NODE_ID.INPUT` (a picture input
        naming another of the server's files included)."""
        changed = {}
        for parameter, editor in self.editors:
            if differs(editor, parameter):
                changed[str(parameter.ref)] = editor_value(editor, parameter)
        for ref, parameter in self._picture_parameters.items():
            name = self.picture_fields[ref].server_name
            if name != parameter.value:
                changed[ref] = name
        return changed

    def server_values(self) -> dict[str, Any]:
        """The value of each input that names a file or a choice of the server's: every
        editor's, and each picture input's while no file of the artist's is chosen (a chosen
        one is uploaded: no server lacks it)."""
        values = {str(p.ref): editor_value(e, p) for p, e in self.editors}
        for ref, field in self.picture_fields.items():
            if field.path is None:
                values[ref] = field.server_name
        return values

    def mark_unlisted(self, catalogues: list[tuple[str, Catalogue]]) -> list[Unlisted]:
        """Mark in red each field whose value a server does not list (a model, a LoRA, a
        picture...), its tooltip saying which servers lack it and which have it; returns
        them (the composer says them at its top, with the servers' files to pick from)."""
        values = self.server_values()
        parameters = [
            *self._parameters(),
            *(p for ref, p in self._picture_parameters.items() if ref in values),
        ]
        unlisted = unlisted_by_server(parameters, values, catalogues)
        by_ref = {str(u.parameter.ref): u for u in unlisted}
        for parameter, editor in self.editors:
            found = by_ref.get(str(parameter.ref))
            if found is not None:
                editor.setToolTip(unlisted_tooltip(found))
                editor.setStyleSheet(_UNLISTED_STYLE)
            elif editor.styleSheet():
                editor.setStyleSheet("")
                editor.setToolTip(default_tooltip(parameter))
        for ref, field in self.picture_fields.items():
            found = by_ref.get(ref)
            field.mark_missing(unlisted_tooltip(found) if found is not None else "")
        return unlisted

    def set_value(self, ref: str, value: Any) -> None:
        """Put ``value`` in the field of ``NODE_ID.INPUT`` (a file picked from a server's
        list: a list field gains it when it lacks it)."""
        field = self.picture_fields.get(ref)
        if field is not None:
            field.set_server_name(str(value))
            return
        parameter, editor = next((p, e) for p, e in self.editors if str(p.ref) == ref)
        if isinstance(editor, QComboBox) and editor.findData(value) < 0:
            editor.addItem(str(value), value)
        set_editor_value(editor, parameter, value)

    def _parameters(self) -> list[Parameter]:
        return [parameter for parameter, _editor in self.editors]

    def show_values(self, values: dict[str, Any]) -> None:
        for parameter, editor in self.editors:
            if str(parameter.ref) in values:
                set_editor_value(editor, parameter, values[str(parameter.ref)])
        for ref, parameter in self._picture_parameters.items():
            name = values.get(ref, parameter.value)
            if isinstance(name, str) and name != self.picture_fields[ref].server_name:
                self.picture_fields[ref].set_server_name(name)


def _label(text: str, parent: QWidget) -> QLabel:
    label = QLabel(text, parent)
    label.setWordWrap(True)
    label.setToolTip(text)
    return label


def _long(label: QLabel) -> bool:
    metrics = label.fontMetrics()
    return metrics.horizontalAdvance(label.text()) > _BESIDE_CHARS * metrics.averageCharWidth()
