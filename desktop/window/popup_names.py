"""Names for the lists combo boxes pop up, so that assistive technology says which choices
they are ("Batch choices"), for every combo box of the app, made now or later."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QComboBox


class PopupNamer(QObject):
    """Names a combo box's popup list after the combo box, as Qt polishes it (before it is
    first shown); a popup named already keeps its name."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Polish and isinstance(watched, QComboBox):
            name_popup(watched)
        return False


def name_popup(combo: QComboBox) -> None:
    view = combo.view()
    if not view.accessibleName():
        view.setAccessibleName(f"{combo_name(combo)}: choices")


def combo_name(combo: QComboBox) -> str:
    """The combo box's accessible name, else its tooltip's first line. (Not its label's text:
    asking a file dialog's labels for their buddies while it is polished crashed Qt.)"""
    return combo.accessibleName() or combo.toolTip().split("\n")[0] or "Choices"


def install_popup_names(app: QApplication) -> None:
    """Name every combo box's popup from now on (once per application)."""
    if app.findChild(PopupNamer) is None:
        app.installEventFilter(PopupNamer(app))
