"""The top of the composer when a server lacks what the workflow names (a model, a picture, a
node): one sentence per server, said as the workflow arrives (a drop, Open, a preset switch),
and under it, for each file it lacks, a list of that server's own files to pick instead."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, QSize, Qt, Signal, Slot
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QGridLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from core.controller.placing_said import host_text
from desktop.composer.composer_notice import missing_lines
from desktop.composer.parameter_editors import narrow

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from core.presets.availability import Unlisted

_STYLE = "QFrame#missing { border: 1px solid #c42b1c; border-radius: 3px; }"
_TEXT_STYLE = "color: #a4262c;"
MAX_LINES = 9  # past this many lines of text the panel scrolls: the form keeps its room
PICKERS_PER_ROW = 2


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
        self.setAccessibleName("What the servers lack")
        self._body = QWidget(self)
        self._column = QVBoxLayout(self._body)
        self._column.setContentsMargins(0, 0, 0, 0)
        self._column.setSpacing(3)
        self._scroll = _FittedScroll(self)
        self._scroll.setAccessibleName("What the servers lack, scrolled")
        self._scroll.setFrameShape(QFrame.Shape.NoFrame)
        self._scroll.setWidgetResizable(True)
        self._scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._scroll.setWidget(self._body)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(6, 4, 6, 4)
        outer.addWidget(self._scroll)
        self.pickers: list[QComboBox] = []
        self._parts: list[QWidget] = []
        self._text = ""
        self._shown: tuple[Any, ...] = ()
        self.setVisible(False)

    def text(self) -> str:
        """The sentences shown, one line per server."""
        return self._text

    def show_missing(
        self,
        unlisted: Sequence[Unlisted],
        classes: Mapping[str, list[str]],
        servers: Sequence[str],
    ) -> None:
        """Say what ``servers`` lack (``core.presets.availability``), or hide when nothing."""
        lines = missing_lines(unlisted, classes, servers)
        offers = tuple(
            (str(u.parameter.ref), s, u.offered.get(s)) for u in unlisted for s in u.lacking
        )
        if (lines, offers) == self._shown:
            return  # asked with each edit: the pickers stay as they are
        self._shown = (lines, offers)
        self._text = "\n".join(line for _server, line in lines)
        self._clear()
        for server, line in lines:
            self._add_line(line)
            wanted = [u for u in unlisted if server in u.lacking and u.offered.get(server)]
            if server is not None and wanted:
                self._add_pickers(wanted, server)
        self.setVisible(bool(lines))
        self._scroll.updateGeometry()  # its height follows its lines

    def _clear(self) -> None:
        # Hidden and deleted later, never at once: a picker may be the sender of the pick
        # that asked for this.
        for part in self._parts:
            self._column.removeWidget(part)
            part.hide()
            part.deleteLater()
        self._parts, self.pickers = [], []

    def _add_line(self, text: str) -> None:
        label = QLabel(text, self._body)
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setStyleSheet(_TEXT_STYLE)
        self._column.addWidget(label)
        label.show()  # at once, not when the event loop next runs: its height counts now
        self._parts.append(label)

    def _add_pickers(self, items: list[Unlisted], server: str) -> None:
        row = QWidget(self._body)
        grid = QGridLayout(row)
        grid.setContentsMargins(12, 0, 0, 2)
        for index, item in enumerate(items):
            picker = self._picker(item, server, row)
            grid.addWidget(picker, index // PICKERS_PER_ROW, index % PICKERS_PER_ROW)
        self._column.addWidget(row)
        row.show()
        self._parts.append(row)

    def _picker(self, item: Unlisted, server: str, parent: QWidget) -> QComboBox:
        host, label = host_text(server), item.parameter.label
        picker = QComboBox(parent)
        narrow(picker)
        picker.setMinimumContentsLength(6)  # two side by side in a narrow pane
        picker.addItem(f"Instead of {item.value}…", None)
        for choice in item.offered[server]:
            picker.addItem(str(choice), choice)
        picker.setAccessibleName(f"Instead of {item.value} on {host}")
        picker.setToolTip(
            f"{label}: instead of “{item.value}”, one of the {_files(item)} {host} has "
            "(the one picked goes in the field)"
        )
        picker.setProperty("ref", str(item.parameter.ref))
        picker.activated.connect(self._chosen)
        self.pickers.append(picker)
        return picker

    @Slot(int)
    def _chosen(self, index: int) -> None:
        picker = self.sender()
        if not isinstance(picker, QComboBox):
            return
        value = picker.itemData(index)
        if value is not None:
            self.picked.emit(str(picker.property("ref")), value)


class _FittedScroll(QScrollArea):
    """A scroll area as tall as its contents at its width, up to ``MAX_LINES`` of text; past
    that it scrolls (so the form below keeps its room). The layout asks it at layout time,
    when the width is known, so it never shows a height worked out for another width."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        policy = self.sizePolicy()
        policy.setHeightForWidth(True)
        policy.setVerticalPolicy(QSizePolicy.Policy.Fixed)
        self.setSizePolicy(policy)

    def hasHeightForWidth(self) -> bool:
        return True

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self.updateGeometry()  # its contents changed: so may its height
        return super().eventFilter(watched, event)

    def heightForWidth(self, width: int) -> int:
        body = self.widget()
        if body is None:
            return 0
        needed = body.heightForWidth(width)
        if needed < 0:
            needed = body.sizeHint().height()
        return min(needed, MAX_LINES * self.fontMetrics().lineSpacing())

    def sizeHint(self) -> QSize:
        width = self.width() if self.width() > 1 else super().sizeHint().width()
        return QSize(super().sizeHint().width(), self.heightForWidth(width))

    def minimumSizeHint(self) -> QSize:
        return QSize(super().minimumSizeHint().width(), self.sizeHint().height())


def _files(item: Unlisted) -> str:
    return {"model": "models", "picture": "pictures"}.get(str(item.kind), "choices")
