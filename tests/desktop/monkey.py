"""A monkey for the real window: seeded random clicks, keys, wheel turns, drags, drops of
workflow files and pictures, batch and tab switches, menus and dialogs opened and dismissed.

It acts from a Qt timer (as the artist's input arrives: outside any asyncio task), so a dialog
or a menu that an action opens runs its own event loop as it would for the artist; the timer
fires inside that loop too, and there the monkey dismisses what is open (a dialog rejected, a
menu or a drag cancelled) so nothing blocks. It records every uncaught exception, every Qt
warning, and a window gone or hidden; the seed replays a run (``MONKEY_SEED``)."""

from __future__ import annotations

import random
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtCore import (
    QEvent,
    QObject,
    QPoint,
    QPointF,
    Qt,
    QTimer,
    QtMsgType,
    qInstallMessageHandler,
)
from PySide6.QtGui import QAction, QContextMenuEvent, QMouseEvent, QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QComboBox,
    QDialog,
    QTabWidget,
    QWidget,
)

from tests.desktop.helpers import StubDropEvent

if TYPE_CHECKING:
    from collections.abc import Callable
    from types import TracebackType

    from desktop.window.main_window import MainWindow

ROOT = Path(__file__).resolve().parents[2]
DROPS = (
    *sorted((ROOT / "resources" / "presets").glob("*.json")),
    ROOT / "tests" / "data" / "comfyui-output-with-workflow.png",
    ROOT / "resources" / "batchline.png",  # a picture without a workflow
)
# What would end the session rather than test the window: closing and quitting, leaving the demo.
ENDS_THE_SESSION = re.compile(r"close window|quit|connect to a real|exit", re.IGNORECASE)
KEYS = (
    *[Qt.Key(Qt.Key.Key_A + n) for n in range(26)],
    *[Qt.Key(Qt.Key.Key_0 + n) for n in range(10)],
    Qt.Key.Key_Return,
    Qt.Key.Key_Enter,
    Qt.Key.Key_Escape,
    Qt.Key.Key_Space,
    Qt.Key.Key_Tab,
    Qt.Key.Key_Backspace,
    Qt.Key.Key_Delete,
    Qt.Key.Key_Left,
    Qt.Key.Key_Right,
    Qt.Key.Key_Up,
    Qt.Key.Key_Down,
    Qt.Key.Key_PageUp,
    Qt.Key.Key_PageDown,
    Qt.Key.Key_Home,
    Qt.Key.Key_End,
    Qt.Key.Key_Plus,
    Qt.Key.Key_Minus,
    Qt.Key.Key_F1,
    Qt.Key.Key_F2,
    Qt.Key.Key_F5,
)
MODIFIERS = (
    Qt.KeyboardModifier.NoModifier,
    Qt.KeyboardModifier.NoModifier,
    Qt.KeyboardModifier.ShiftModifier,
    Qt.KeyboardModifier.ControlModifier,
    Qt.KeyboardModifier.AltModifier,
)
# Qt's own words, not the window's: the offscreen platform cannot do what a real one can.
QT_NOISE = re.compile(r"This plugin does not support")


@dataclass
class Figures:
    """What a run did and what went wrong."""

    seed: int
    actions: int = 0
    dialogs_dismissed: int = 0
    by_kind: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0
    last: list[str] = field(default_factory=list)  # the latest actions, to replay by eye

    def summary(self) -> str:
        kinds = ", ".join(f"{kind} {count}" for kind, count in sorted(self.by_kind.items()))
        return (
            f"monkey: {self.actions} actions in {self.seconds:.1f} s, {self.dialogs_dismissed}"
            f" dialogs/menus dismissed, {len(self.failures)} failures; seed {self.seed}"
            f" (replay: MONKEY_SEED={self.seed}); {kinds}"
        )


class Monkey(QObject):
    """Acts ``actions`` times on ``window``, one action per timer tick; ``done`` then runs."""

    def __init__(
        self, window: MainWindow, seed: int, actions: int, done: Callable[[Figures], None]
    ) -> None:
        super().__init__()
        self.window = window
        self.rng = random.Random(seed)
        self.figures = Figures(seed)
        self.wanted = actions
        self.done = done
        self._acting = False
        self._finished = False
        self._timer = QTimer(self)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._tick)
        # A timer does not fire again inside its own slot: a second one dismisses what an
        # action opened, from inside the loop that action runs.
        self._dismisser = QTimer(self)
        self._dismisser.setInterval(10)
        self._dismisser.timeout.connect(self._dismiss_if_acting)
        self._started = 0.0
        self._old_hook: Any = None
        self._old_qt: Any = None

    def start(self) -> None:
        self._old_hook = sys.excepthook
        sys.excepthook = self._uncaught
        self._old_qt = qInstallMessageHandler(self._qt_message)
        self._started = time.monotonic()
        self._timer.start()
        self._dismisser.start()

    def _stop(self) -> None:
        """End the run; the timer goes on until no loop an action opened is left running."""
        self._finished = True

    def _end(self) -> None:
        self._timer.stop()
        self._dismisser.stop()
        sys.excepthook = self._old_hook
        qInstallMessageHandler(self._old_qt)
        self.figures.seconds = time.monotonic() - self._started
        QTimer.singleShot(0, lambda: self.done(self.figures))

    # --- watching ---------------------------------------------------------------------------

    def _uncaught(
        self, kind: type[BaseException], exc: BaseException, tb: TracebackType | None
    ) -> None:
        import traceback

        text = "".join(traceback.format_exception(kind, exc, tb))
        self._fail(f"uncaught exception after {self.figures.last[-3:]}:\n{text}")
        self._old_hook(kind, exc, tb)  # the app's own hook: its sentence, its log line

    def _qt_message(self, kind: QtMsgType, context: Any, message: str) -> None:
        if QT_NOISE.search(message):  # the offscreen platform's, not the window's
            return
        if kind not in (QtMsgType.QtDebugMsg, QtMsgType.QtInfoMsg):
            self._fail(f"Qt {kind.name}: {message} after {self.figures.last[-3:]}")
        if self._old_qt is not None:
            self._old_qt(kind, context, message)

    def _fail(self, what: str) -> None:
        self.figures.failures.append(what)
        self._stop()

    def _window_alive(self) -> bool:
        return shiboken6.isValid(self.window) and self.window.isVisible()

    # --- acting -----------------------------------------------------------------------------

    def _dismiss_if_acting(self) -> None:
        if self._acting:  # inside a loop an action opened (a dialog, a menu, a drag)
            self._dismiss()

    def _tick(self) -> None:
        if self._acting:
            return
        if self._finished:
            self._end()
            return
        if not self._window_alive():
            self._fail(f"the window is gone after {self.figures.last[-3:]}")
            return
        if self.figures.actions >= self.wanted:
            self._stop()
            return
        kind, act = self._choose()
        self.figures.actions += 1
        self.figures.by_kind[kind] = self.figures.by_kind.get(kind, 0) + 1
        self._acting = True
        try:
            what = act()
        except Exception as exc:  # a failure of the monkey's own, not the window's
            import traceback

            what = f"{kind} (monkey error)"
            self._fail(f"the monkey's {kind} failed: {exc}\n{traceback.format_exc()}")
        finally:
            self._acting = False
        self.figures.last = [*self.figures.last[-9:], f"{self.figures.actions}: {what}"]
        if self.figures.actions % 1000 == 0:
            elapsed = time.monotonic() - self._started
            print(f"monkey: {self.figures.actions} actions survived, {elapsed:.0f} s", flush=True)

    def _choose(self) -> tuple[str, Callable[[], str]]:
        kinds: list[tuple[str, Callable[[], str], int]] = [
            ("click", self._click, 30),
            ("key", self._key, 20),
            ("wheel", self._wheel, 8),
            ("drag", self._drag, 6),
            ("drop", self._drop, 3),
            ("combo", self._combo, 10),
            ("tab", self._tab, 6),
            ("action", self._action, 6),
            ("close stray", self._close_stray, 2),
            ("resize", self._resize, 2),
            ("wait", self._wait, 4),
        ]
        choice = self.rng.choices(kinds, weights=[weight for *_rest, weight in kinds])[0]
        return choice[0], choice[1]

    def _widgets(self, kind: type[QWidget] = QWidget) -> list[QWidget]:
        top = self._top()
        found = [top] if isinstance(top, kind) else []
        found += [w for w in top.findChildren(kind) if w.isVisible() and w.isEnabled()]
        return [w for w in found if not _ends_the_session(w)]

    def _top(self) -> QWidget:
        """Where the artist's input would go: an open window of the app's, else the window."""
        others = [
            w
            for w in QApplication.topLevelWidgets()
            if w.isVisible() and w is not self.window and not (w.windowType() & Qt.WindowType.Popup)
        ]
        return others[-1] if others and self.rng.random() < 0.5 else self.window

    def _point(self, widget: QWidget) -> QPoint:
        size = widget.size()
        return QPoint(
            self.rng.randrange(max(1, size.width())), self.rng.randrange(max(1, size.height()))
        )

    def _click(self) -> str:
        widget = self.rng.choice(self._widgets())
        button = self.rng.choices(
            [Qt.MouseButton.LeftButton, Qt.MouseButton.RightButton], weights=[4, 1]
        )[0]
        point = self._point(widget)
        target = widget.childAt(point) or widget
        if _ends_the_session(target):
            return "click skipped (ends the session)"
        point = target.mapFrom(widget, point) if target is not widget else point
        name = _name(target)
        if self.rng.random() < 0.15:
            QTest.mouseDClick(target, button, Qt.KeyboardModifier.NoModifier, point)
            return f"double-click {name}"
        QTest.mouseClick(target, button, Qt.KeyboardModifier.NoModifier, point)
        if button == Qt.MouseButton.RightButton and shiboken6.isValid(target):
            # a right click's context menu comes from this event, as the platform sends it
            menu = QContextMenuEvent(
                QContextMenuEvent.Reason.Mouse, point, target.mapToGlobal(point)
            )
            QApplication.sendEvent(target, menu)
        return f"{button.name} click {name}"

    def _key(self) -> str:
        key = self.rng.choice(KEYS)
        modifier = self.rng.choice(MODIFIERS)
        if _ends_by_key(self.window, key, modifier):
            return "key skipped (ends the session)"
        target = QApplication.focusWidget() or self.window
        if self.rng.random() < 0.3:
            target = self.rng.choice(self._widgets())
            target.setFocus()
        name = _name(target)
        QTest.keyClick(target, key, modifier)
        return f"key {modifier.name}+{key.name} on {name}"

    def _wheel(self) -> str:
        widget = self.rng.choice(self._widgets())
        point = QPointF(self._point(widget))
        delta = QPoint(0, self.rng.choice([-360, -120, 120, 360]))
        modifier = self.rng.choice(MODIFIERS)
        event = QWheelEvent(
            point,
            QPointF(widget.mapToGlobal(point)),
            QPoint(),
            delta,
            Qt.MouseButton.NoButton,
            modifier,
            Qt.ScrollPhase.NoScrollPhase,
            False,
        )
        name = _name(widget)
        QApplication.sendEvent(widget, event)
        return f"wheel {delta.y()} {modifier.name} on {name}"

    def _drag(self) -> str:
        widget = self.rng.choice(self._widgets())
        start = self._point(widget)
        left = Qt.MouseButton.LeftButton
        no = Qt.KeyboardModifier.NoModifier
        name = _name(widget)
        QTest.mousePress(widget, left, no, start)
        end = start
        for _step in range(self.rng.randrange(2, 6)):
            if not shiboken6.isValid(widget):  # the press (or what it ran) deleted it
                return f"drag {name} (its widget went)"
            end = self._point(widget)
            move = QMouseEvent(
                QEvent.Type.MouseMove,
                QPointF(end),
                QPointF(widget.mapToGlobal(end)),
                Qt.MouseButton.NoButton,
                left,
                no,
            )
            QApplication.sendEvent(widget, move)
        if shiboken6.isValid(widget):
            QTest.mouseRelease(widget, left, no, end)
        return f"drag {name} {start.x()},{start.y()} -> {end.x()},{end.y()}"

    def _drop(self) -> str:
        path = self.rng.choice(DROPS)
        event: Any = StubDropEvent([path])
        self.window.dragEnterEvent(event)
        if event.accepted:
            self.window.dropEvent(event)
        return f"drop {path.name} (accepted: {event.accepted})"

    def _combo(self) -> str:
        combos = [w for w in self._widgets(QComboBox) if isinstance(w, QComboBox) and w.count()]
        if not combos:
            return "combo (none)"
        combo = self.rng.choice(combos)
        index = self.rng.randrange(combo.count())
        name = _name(combo)
        combo.setCurrentIndex(index)  # the batch chooser: a batch switch
        return f"combo {name} -> {index}"

    def _tab(self) -> str:
        tabs = [w for w in self._widgets(QTabWidget) if isinstance(w, QTabWidget) and w.count()]
        if not tabs:
            return "tab (none)"
        tab = self.rng.choice(tabs)
        index = self.rng.randrange(tab.count())
        name = _name(tab)
        tab.setCurrentIndex(index)
        return f"tab {name} -> {index}"

    def _action(self) -> str:
        actions = [
            a
            for a in self.window.findChildren(QAction)
            if a.isEnabled() and a.text() and not ENDS_THE_SESSION.search(a.text()) and not a.menu()
        ]
        action = self.rng.choice(actions)
        text = action.text()
        action.trigger()  # a menu's item, a toolbar button, a shortcut: dialogs open here
        return f"action {text!r}"

    def _close_stray(self) -> str:
        strays = [
            w for w in QApplication.topLevelWidgets() if w.isVisible() and w is not self.window
        ]
        for stray in strays:
            stray.close()
        return f"closed {len(strays)} other windows"

    def _resize(self) -> str:
        width, height = self.rng.randrange(700, 1800), self.rng.randrange(500, 1100)
        self.window.resize(width, height)
        return f"resize {width}x{height}"

    def _wait(self) -> str:
        QTest.qWait(self.rng.randrange(5, 60))  # the batch goes on: pictures arrive
        return "wait"

    def _dismiss(self) -> None:
        """Close what an action opened, so its loop returns (as the artist's Escape would)."""
        popup = QApplication.activePopupWidget()
        modal = QApplication.activeModalWidget()
        if popup is not None:
            popup.close()
        elif isinstance(modal, QDialog):
            modal.reject()
        elif modal is not None:
            modal.close()
        else:  # a drag: Escape cancels it, wherever the keyboard is
            QTest.keyClick(QApplication.focusWidget() or self.window, Qt.Key.Key_Escape)
            return
        self.figures.dialogs_dismissed += 1


def _name(widget: QWidget) -> str:
    text = widget.accessibleName() or (widget.text() if isinstance(widget, QAbstractButton) else "")
    return f"{type(widget).__name__}({text!r})" if text else type(widget).__name__


def _ends_the_session(widget: QWidget) -> bool:
    if isinstance(widget, QAbstractButton):
        action = getattr(widget, "defaultAction", lambda: None)()
        texts = [widget.text(), widget.toolTip(), action.text() if action else ""]
        return any(ENDS_THE_SESSION.search(text) for text in texts if text)
    return False


def _ends_by_key(window: QWidget, key: Qt.Key, modifier: Qt.KeyboardModifier) -> bool:
    from PySide6.QtGui import QKeySequence

    pressed = QKeySequence(modifier.value | key.value)
    for action in window.findChildren(QAction):
        if ENDS_THE_SESSION.search(action.text()) and any(
            shortcut.matches(pressed) == QKeySequence.SequenceMatch.ExactMatch
            for shortcut in action.shortcuts()
        ):
            return True
    return bool(key == Qt.Key.Key_F4 and modifier == Qt.KeyboardModifier.AltModifier)
