"""A preset's versions, oldest first, and making an old one current again (as a new version,
so nothing is lost): the window's `batchline preset versions|restore`.

Each version says when it was stored, by whom, from where (the ComfyUI editor's address it was
sent from) and what it changed of the version before ("steps 4 → 20"), as the inputs of its
workflow read.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.batch.varied import short_text
from core.catalogue import Catalogue
from core.presets.input_names import input_names

if TYPE_CHECKING:
    from collections.abc import Mapping

    from core.ledger import Ledger
    from core.ledger.preset_versions import PresetVersionRecord

MAX_CHANGES = 4  # inputs a row names before "and N more"


class PresetVersionsDialog(QDialog):
    """The versions of preset ``name``; ``chosen`` is the number to restore once accepted."""

    COLUMNS = ("Version", "Stored", "By", "From", "What changed")

    def __init__(self, ledger: Ledger, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Versions of '{name}'")
        self.chosen: int | None = None
        versions = ledger.presets.versions(name)
        self.table = QTreeWidget(self)
        self.table.setAccessibleName("Preset versions")
        self.table.setHeaderLabels(list(self.COLUMNS))
        self.table.setRootIsDecorated(False)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        before: dict[str, Any] = {}
        before_names: dict[str, str] = {}
        catalogue = Catalogue.bundled()
        for version in versions:
            workflow = ledger.workflow(version.workflow_hash)
            names = input_names(workflow, catalogue)
            told = {**before_names, **names}  # an input removed: by its name before
            changed = changes(before, workflow, told) if before else "first version"
            self.table.addTopLevelItem(self._row(version, versions[-1], changed))
            before, before_names = workflow, names
        for column in range(len(self.COLUMNS) - 1):
            self.table.resizeColumnToContents(column)
        said = QLabel(
            "Restoring makes a version current again as a new one; every version stays.", self
        )
        said.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.restore_button = QPushButton("&Restore this version", self)
        self.restore_button.setEnabled(False)
        buttons.addButton(self.restore_button, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.accepted.connect(self._restore)
        buttons.rejected.connect(self.reject)
        self.table.currentItemChanged.connect(self._selected)
        self.table.itemDoubleClicked.connect(lambda _item, _column: self.restore_button.click())
        layout = QVBoxLayout(self)
        for widget in (self.table, said, buttons):
            layout.addWidget(widget)
        last = self.table.topLevelItem(self.table.topLevelItemCount() - 1)
        if last is not None:
            self.table.setCurrentItem(last)
        self.resize(720, 320)

    def _row(
        self, version: PresetVersionRecord, current: PresetVersionRecord, changed: str
    ) -> QTreeWidgetItem:
        number = f"{version.number} (current)" if version is current else str(version.number)
        cells = (
            number,
            time.strftime("%Y-%m-%d %H:%M", time.localtime(version.created_at)),
            str(version.stored_by),
            version.origin,
            changed,
        )
        item = QTreeWidgetItem(list(cells))
        item.setData(0, Qt.ItemDataRole.UserRole, version.number)
        item.setData(0, Qt.ItemDataRole.UserRole + 1, version is current)
        item.setToolTip(len(cells) - 1, changed)
        return item

    def _selected(self, item: QTreeWidgetItem | None, _previous: QTreeWidgetItem | None) -> None:
        current = item is None or bool(item.data(0, Qt.ItemDataRole.UserRole + 1))
        self.restore_button.setEnabled(not current)

    def _restore(self) -> None:
        item = self.table.currentItem()
        if item is None or item.data(0, Qt.ItemDataRole.UserRole + 1):
            return
        self.chosen = int(item.data(0, Qt.ItemDataRole.UserRole))
        self.accept()


def changes(
    before: dict[str, Any], after: dict[str, Any], names: Mapping[str, str] | None = None
) -> str:
    """What ``after`` changed of ``before`` (two API workflows), input by input, each by its
    name in ``names`` (else ``NODE.INPUT``): "KSampler · steps 4 → 20 · Positive prompt ·
    text a fox → an owl"; nodes added or removed by their class; "same inputs" when only the
    editor's layout changed."""
    names = names or {}
    said: list[str] = []
    for node_id in sorted(set(before) | set(after), key=_node_order):
        old, new = before.get(node_id), after.get(node_id)
        if not isinstance(old, dict) or not isinstance(new, dict):
            kept = new if isinstance(new, dict) else old
            kind = kept.get("class_type", "node") if isinstance(kept, dict) else "node"
            said.append(f"{'+' if old is None else '−'} {kind} (node {node_id})")
            continue
        old_inputs, new_inputs = old.get("inputs") or {}, new.get("inputs") or {}
        for name in sorted(set(old_inputs) | set(new_inputs)):
            a, b = old_inputs.get(name), new_inputs.get(name)
            if a == b:
                continue
            key = f"{node_id}.{name}"
            if isinstance(a, list) or isinstance(b, list):  # a link to another node's output
                said.append(f"{names.get(key, key)} linked anew")
            else:
                said.append(f"{names.get(key, key)} {_value(a)} → {_value(b)}")
    if not said:
        return "same inputs"
    more = len(said) - MAX_CHANGES
    return " · ".join(said[:MAX_CHANGES]) + (f" and {more} more" if more > 0 else "")


def _value(value: Any) -> str:
    return "none" if value is None else short_text(value, limit=20)


def _node_order(node_id: str) -> tuple[int, str]:
    return (int(node_id), "") if node_id.isdigit() else (1 << 62, node_id)
