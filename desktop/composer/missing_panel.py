"""The top of the composer when a server lacks what the workflow names (a model, a picture, a
node): one sentence per server, said as the workflow arrives (a drop, Open, a preset switch),
and for each missing file a list of that server's own files for the input to pick instead."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import QComboBox, QFrame, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from core.controller.placing_said import host_text
from desktop.composer.composer_notice import missing_notice
from desktop.composer.parameter_editors import narrow

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from core.presets.availability import Unlisted

_STYLE = "QFrame#missing { border: 1px solid #c42b1c; border-radius: 3px; }"
_TEXT_STYLE = "color: #a4262c;"


class MissingFilesPanel(QFrame):
    """What each server lacks of the workflow, with a picker per missing file.

    Signals:
        picked(str, object): a file was picked for input ``NODE_ID.INPUT``: the value to set.
    """

    picked = Signal(str, object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("missing")
        self.setStyleSheet(_STYLE)
        self.sentence = QLabel(self)
        self.sentence.setWordWrap(True)
        self.sentence.setTextFormat(Qt.TextFormat.PlainText)
        self.sentence.setStyleSheet(_TEXT_STYLE)
        self.sentence.setAccessibleName("What the servers lack")
        self._column = QVBoxLayout(self)
        self._column.setContentsMargins(6, 4, 6, 4)
        self._column.setSpacing(3)
        self._column.addWidget(self.sentence)
        self.pickers: list[QComboBox] = []
        self._rows: list[QWidget] = []
        self._shown: tuple[Any, ...] = ()
        self.setVisible(False)

    def show_missing(
        self,
        unlisted: Sequence[Unlisted],
        classes: Mapping[str, list[str]],
        servers: Sequence[str],
    ) -> None:
        """Say what ``servers`` lack (``core.presets.availability``), or hide when nothing."""
        text = missing_notice(unlisted, classes, servers)
        rows = [(u, s) for u in unlisted for s in u.lacking if u.offered.get(s)]
        shown = (text, tuple((str(u.parameter.ref), s, u.offered[s]) for u, s in rows))
        if shown == self._shown:
            return  # asked with each edit: the pickers stay as they are
        self._shown = shown
        self.sentence.setText(text)
        self._clear_rows()
        for item, server in rows:
            self._add_row(item, server)
        self.setVisible(bool(text))

    def _clear_rows(self) -> None:
        # Hidden and deleted later, never at once: a picker may be the sender of the pick
        # that asked for this.
        for row in self._rows:
            self._column.removeWidget(row)
            row.hide()
            row.deleteLater()
        self._rows, self.pickers = [], []

    def _add_row(self, item: Unlisted, server: str) -> None:
        host, label = host_text(server), item.parameter.label
        row = QWidget(self)
        line = QHBoxLayout(row)
        line.setContentsMargins(0, 0, 0, 0)
        caption = QLabel(f"Instead of “{item.value}” on {host}:", row)
        caption.setWordWrap(True)
        caption.setTextFormat(Qt.TextFormat.PlainText)
        picker = QComboBox(row)
        narrow(picker)
        picker.addItem(f"Choose one of its {_files(item)}…", None)
        for choice in item.offered[server]:
            picker.addItem(str(choice), choice)
        picker.setAccessibleName(f"Instead of {item.value} on {host}")
        picker.setToolTip(f"The files {host} has for {label}: the one picked goes in the field")
        picker.setProperty("ref", str(item.parameter.ref))
        picker.activated.connect(self._chosen)
        caption.setBuddy(picker)
        line.addWidget(caption, 1)
        line.addWidget(picker, 1)
        self._column.addWidget(row)
        self._rows.append(row)
        self.pickers.append(picker)

    @Slot(int)
    def _chosen(self, index: int) -> None:
        picker = self.sender()
        if not isinstance(picker, QComboBox):
            return
        value = picker.itemData(index)
        if value is not None:
            self.picked.emit(str(picker.property("ref")), value)


def _files(item: Unlisted) -> str:
    return {"model": "models", "picture": "pictures"}.get(str(item.kind), "choices")
