"""The window's side panes, presets and composer on the left and details on the right: each
folds away and opens again (a button, a key, its View menu entry, or dragging the splitter to
an edge and back), and the artist's choice is kept in the ledger for the next start."""

from __future__ import annotations

import logging
from enum import IntEnum
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Slot
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QSplitter, QToolButton, QWidget

from core.errors import LedgerError

if TYPE_CHECKING:
    from core.ledger import Ledger

log = logging.getLogger(__name__)

PANES_KEY = "window_panes"  # {"composer": {"open": bool, "width": int}, "details": {...}}
MIN_OPEN_WIDTH = 120  # a pane opened again is at least this wide
MAX_SHARE = 0.5  # nor wider than this share of the window (the pictures keep room)


class Side(IntEnum):
    """A side pane, by its place in the window's splitter."""

    composer = 0
    details = 2


_TEXTS = {
    Side.composer: (
        "&Presets and composer",
        "F9",
        "Fold the presets and composer away, or open them",
    ),
    Side.details: ("&Details pane", "Shift+F9", "Fold the details pane away, or open it"),
}


class SidePanes(QObject):
    """Folds and opens the splitter's side panes; remembers what the artist chose.

    The middle pane (the pictures) never folds. ``actions`` (checked: the pane is open) go in
    the View menu; ``button(side)`` is a tool button acting the same, to put where it stays
    in sight while the pane is folded.
    """

    def __init__(self, split: QSplitter, ledger: Ledger, parent: QWidget) -> None:
        super().__init__(parent)
        self._split = split
        self._ledger = ledger
        self._widths = {side: 0 for side in Side}  # each pane's width before it folded
        self._chosen: dict[Side, bool] = {}  # what the artist chose since the start
        self._syncing = False
        split.setCollapsible(1, False)
        for side in Side:
            split.setCollapsible(int(side), True)
        self.actions = {side: self._action(side, parent) for side in Side}
        split.splitterMoved.connect(self._moved)

    def _action(self, side: Side, parent: QWidget) -> QAction:
        text, keys, tip = _TEXTS[side]
        action = QAction(text, parent)
        action.setCheckable(True)
        action.setShortcut(QKeySequence(keys))
        action.setToolTip(f"{tip} ({keys})")
        action.toggled.connect(lambda shown, s=side: self._toggled(s, shown))
        parent.addAction(action)
        return action

    def button(self, side: Side, text: str, parent: QWidget) -> QToolButton:
        """A short-worded button that folds the pane or opens it (pressed: open), named for
        assistive technology; it stays in sight while the pane is folded."""
        action = self.actions[side]
        button = QToolButton(parent)
        button.setText(text)
        button.setCheckable(True)
        button.setChecked(action.isChecked())
        button.setToolTip(action.toolTip())
        button.setAccessibleName(_TEXTS[side][0].replace("&", ""))
        button.setAutoRaise(True)
        button.toggled.connect(action.setChecked)
        action.toggled.connect(button.setChecked)
        return button

    def is_open(self, side: Side) -> bool:
        return self._split.sizes()[side] > 0

    def set_open(self, side: Side, shown: bool, *, chosen: bool = True) -> None:
        """Open or fold the pane; ``chosen``: the artist's choice, kept for the next start."""
        if chosen:
            self._chosen[side] = shown
        sizes = self._split.sizes()
        if shown == (sizes[side] > 0):
            self._sync()
            return
        total = sum(sizes)
        if shown:
            width = max(self._widths[side], MIN_OPEN_WIDTH)
            width = min(width, round(total * MAX_SHARE), max(sizes[1] - MIN_OPEN_WIDTH, 0))
            sizes[1] -= width
        else:
            self._widths[side] = sizes[side]
            width, sizes[1] = 0, sizes[1] + sizes[side]
        sizes[side] = width
        self._split.setSizes(sizes)
        self._sync()

    def lay_out(self, sizes: list[int]) -> None:
        """Share the splitter as ``sizes`` (the window's own proposal for its size), then as
        the artist left it last time: a pane folded stays folded, one opened or widened is
        open and as wide (within the room the pictures keep)."""
        kept = self._kept()
        total = sum(sizes)
        for side in Side:
            choice = kept.get(side.name, {})
            width = choice.get("width")
            if isinstance(width, int) and width > 0:
                self._widths[side] = width
            elif sizes[side] > 0:
                self._widths[side] = sizes[side]
            shown = choice.get("open")
            if not isinstance(shown, bool):
                continue  # never chosen: as the window proposes
            room = sizes[1] + sizes[side] - MIN_OPEN_WIDTH  # the pictures keep some
            wanted = max(self._widths[side], MIN_OPEN_WIDTH)
            new = min(wanted, round(total * MAX_SHARE), max(room, 0)) if shown else 0
            sizes[1], sizes[side] = sizes[1] + sizes[side] - new, new
        self._split.setSizes(sizes)
        self._sync()

    def save(self) -> None:
        """Keep what the artist chose (folded, or open and how wide) for the next start."""
        sizes = self._split.sizes()
        kept = self._kept()
        for side, shown in self._chosen.items():
            width = sizes[side] if sizes[side] > 0 else self._widths[side]
            kept[side.name] = {"open": shown, "width": width}
        if not self._chosen:
            return
        try:
            self._ledger.settings.set(PANES_KEY, kept)
        except LedgerError as exc:  # the data folder gone under the window: nothing to keep
            log.info("the panes' layout is not kept: %s", exc)

    def _kept(self) -> dict[str, Any]:
        kept = self._ledger.settings.get(PANES_KEY)
        if not isinstance(kept, dict):
            return {}
        return {k: v for k, v in kept.items() if isinstance(v, dict)}

    def _toggled(self, side: Side, shown: bool) -> None:
        if not self._syncing and shown != self.is_open(side):
            self.set_open(side, shown)

    @Slot(int, int)
    def _moved(self, _position: int, handle: int) -> None:
        """The artist dragged a handle: the pane beside it is as they left it (folded when
        dragged to its edge), their choice."""
        side = Side.composer if handle == 1 else Side.details
        self._chosen[side] = self.is_open(side)
        self._sync()

    def _sync(self) -> None:
        """The actions (and so the buttons) checked as the panes are open."""
        self._syncing = True
        try:
            for side, action in self.actions.items():
                action.setChecked(self.is_open(side))
        finally:
            self._syncing = False
