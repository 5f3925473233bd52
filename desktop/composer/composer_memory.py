"""The composer's memory: its choices kept per preset in the ledger, "Reset to preset" and
"Save as preset…" (a new preset, or the current one replaced after asking)."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtWidgets import QInputDialog, QWidget

from core.batch.workflow import build_workflow
from core.errors import BatchlineError
from core.presets import preset_from_api
from core.presets.composer_state import (
    forget_composer_state,
    load_composer_state,
    save_composer_state,
)
from core.presets.storing import store_preset
from desktop.common.questions import confirm

if TYPE_CHECKING:
    from collections.abc import Iterator

    from core.ledger import Ledger


EDITED_TIP = (
    "Values changed here and not saved as the preset: “Save as preset…” keeps them, "
    "“Reset to preset” goes back"
)


class Composer(Protocol):
    """What the memory reads and sets of the composer: its preset, values and state."""

    @property
    def preset_name(self) -> str | None: ...

    def set_preset(self, name: str) -> None: ...

    def values(self) -> dict[str, Any]: ...

    def state(self) -> dict[str, Any]: ...

    def restore(self, state: dict[str, Any]) -> None: ...

    def show_error(self, text: str) -> None: ...


class ComposerMemory(QObject):
    """Saves the composer's state for its preset at each edit (a settings row: well under a
    millisecond), so that neither a switch nor a crash loses any. ``parent`` is the composer's
    widget: its questions are asked over it.

    Signals:
        preset_saved(str): "Save as preset…" stored a preset under this name.
        edited_changed(str, bool): whether a preset has values changed here and not saved
            (its "edited" mark) may have changed: its name and the mark.
    """

    preset_saved = Signal(str)
    edited_changed = Signal(str, bool)

    def __init__(self, composer: Composer, ledger: Ledger, parent: QWidget) -> None:
        super().__init__(parent)
        self._composer = composer
        self._parent = parent
        self._ledger = ledger
        self._restoring = False

    @Slot()
    def edited(self) -> None:
        name = self._composer.preset_name
        if name is not None and not self._restoring:
            save_composer_state(self._ledger, name, self._composer.state())
            self.edited_changed.emit(name, bool(self._composer.values()))

    @contextmanager
    def quiet(self) -> Iterator[None]:
        """Changes made meanwhile are the composer's own (building, restoring): not saved."""
        self._restoring = True
        try:
            yield
        finally:
            self._restoring = False

    def restore(self, name: str) -> None:
        """Show what the artist last set for the preset (the defaults when never set)."""
        self._composer.restore(load_composer_state(self._ledger, name) or {})

    @Slot()
    def reset(self) -> None:
        """Back to the preset's own values; the kept state is forgotten."""
        name = self._composer.preset_name
        if name is None:
            return
        forget_composer_state(self._ledger, name)
        self.edited_changed.emit(name, False)
        self._composer.set_preset(name)

    def save_as(self, name: str, *, replace: bool = False) -> str:
        """Store the preset's workflow with the composer's values as `name`.

        Raises:
            BatchlineError: the name is not valid, or is taken and `replace` is false.
        """
        current = self._composer.preset_name
        if current is None:
            raise BatchlineError("no preset is chosen")
        record = self._ledger.presets.get(current)
        api = build_workflow(record.api_workflow, self._composer.values())
        seeds = record.info.get("seed_inputs") or None
        preset = preset_from_api(api, Path(record.source or name), None, seeds)
        store_preset(self._ledger, name, preset, seeds, replace=replace)
        forget_composer_state(self._ledger, name)  # its own values are now the composer's
        if name != current:
            save_composer_state(self._ledger, name, self._composer.state())
        self.edited_changed.emit(name, False)
        self.preset_saved.emit(name)
        return name

    @Slot()
    def ask_save_as(self) -> None:
        """Ask for a name; replacing a preset of that name is confirmed first."""
        parent = self._parent
        current = self._composer.preset_name or ""
        name, ok = QInputDialog.getText(parent, "Save as preset", "Preset name:", text=current)
        name = name.strip()
        if not ok or not name:
            return
        replace = name in self._ledger.presets.names()
        if replace and not confirm_replace(parent, name):
            return
        try:
            self.save_as(name, replace=replace)
        except BatchlineError as exc:
            self._composer.show_error(str(exc))
            return
        self._composer.set_preset(name)


def confirm_replace(parent: QWidget, name: str) -> bool:
    text = f"A preset named “{name}” exists. Replace its workflow with these values?"
    return confirm(parent, "Replace preset", text)
