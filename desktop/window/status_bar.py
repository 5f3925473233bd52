"""The status bar: connection, ComfyUI's queue depth, our jobs in flight against the caps, rate."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Slot
from PySide6.QtWidgets import QLabel, QStatusBar

from core.controller.placing_said import host_text
from core.controller.status import Connection

if TYPE_CHECKING:
    from core.controller.status import ControllerStatus

CONNECTION_STYLE = {
    Connection.connecting: ("Connecting…", "#6c757d"),
    Connection.connected: ("Connected", "#1e7b34"),
    Connection.reconnecting: ("Reconnecting…", "#b36b00"),
    Connection.offline: ("Offline", "#a4262c"),
}
DEMO_STYLE = ("Demo server", "#6f42c1")
SOME_UP_COLOUR = "#b36b00"  # several servers, not all of them answering
STOPPED_STYLE = ("Controller stopped", "#a4262c")  # an error it cannot survive (tooltip: which)
LOCAL_ERROR_COLOUR = "#b36b00"  # a local error the controller is retrying around


def connection_text(status: ControllerStatus, demo: bool) -> tuple[str, str]:
    """The connection, unless the controller stopped; a local error being retried is added."""
    if status.stopped:
        return STOPPED_STYLE
    text, colour = _server_text(status, demo)
    if status.local_error:
        return f"{text} · local error, retrying", LOCAL_ERROR_COLOUR
    return text, colour


def _server_text(status: ControllerStatus, demo: bool) -> tuple[str, str]:
    text, colour = CONNECTION_STYLE[status.connection]
    if demo and status.connection is Connection.connected:
        return DEMO_STYLE
    if len(status.servers) > 1 and status.connection in _AT:
        up = sum(s.connection is Connection.connected for s in status.servers)
        if up == len(status.servers):
            return f"{text} to {up} servers", colour
        if up:
            return f"{text} to {up} of {len(status.servers)} servers", SOME_UP_COLOUR
    if status.server and not demo:
        text = f"{text} to {host_text(status.server)}" if status.connection in _AT else text
    return text, colour


def connection_tooltip(status: ControllerStatus) -> str:
    """Why the controller stopped or what it is retrying; each server's state when there are
    several; the last error, if any."""
    lines = [text for text in (status.stopped, status.local_error, status.notice_error) if text]
    if len(status.servers) > 1:
        lines += [
            f"{host_text(s.server)}: {s.connection.value}, queue {s.queue}"
            + (f" ({s.last_error})" if s.last_error else "")
            for s in status.servers
        ]
    elif status.last_error:
        lines.append(status.last_error)
    return "\n".join(lines) or status.server


_AT = frozenset({Connection.connecting, Connection.connected})


def queue_text(status: ControllerStatus) -> str:
    return f"ComfyUI queue: {status.server_queue}"


def flight_text(status: ControllerStatus) -> str:
    paused = " · dispatch paused" if status.paused else ""
    servers = f" × {len(status.servers)} servers" if len(status.servers) > 1 else ""
    cap = f"cap {status.global_cap}"
    if status.queue_depth > status.global_cap:  # the cap adapts: short jobs get a deeper queue
        cap = f"queue {status.queue_depth} (auto, cap {status.global_cap})"
    return f"Ours in flight: {status.in_flight} / {cap}{servers}{paused}"


def rate_text(status: ControllerStatus) -> str:
    return f"{status.done_per_minute:.1f} jobs/min"


_LABEL_MIN_WIDTH = 60
_MESSAGE_PADDING = 24  # the status bar's own margins and the size grip


class JobStatusBar(QStatusBar):
    """Shows a ControllerStatus; ``demo`` marks a built-in simulator connection."""

    def __init__(self, demo: bool = False, parent: Any = None) -> None:
        super().__init__(parent)
        self.demo = demo
        self.connection = self._label("Connection")
        self.queue = self._label("ComfyUI queue depth")
        self.flight = self._label("Our jobs in flight")
        self.rate = self._label("Jobs per minute")
        self.messageChanged.connect(self._make_room)

    def _label(self, name: str) -> QLabel:
        label = QLabel(self)
        label.setAccessibleName(name)
        label.setMinimumWidth(_LABEL_MIN_WIDTH)  # clipped, not pushing the window, when narrow
        self.addPermanentWidget(label)
        return label

    @Slot(str)
    def _make_room(self, message: str) -> None:
        """A passing message (a menu entry's tip) gets the room it needs: the rate, our jobs
        in flight and ComfyUI's queue step aside while it shows, in that order (at 200 %
        scale they left it a few letters); the connection always stays."""
        needed = self.fontMetrics().horizontalAdvance(message) + _MESSAGE_PADDING
        free = self.width() - self.connection.sizeHint().width() - _MESSAGE_PADDING
        for label in (self.queue, self.flight, self.rate):
            free -= label.sizeHint().width()
        for label in (self.rate, self.flight, self.queue):
            fits = not message or needed <= free
            label.setVisible(fits)
            if not fits:
                free += label.sizeHint().width()

    def show_status(self, status: ControllerStatus) -> None:
        text, colour = connection_text(status, self.demo)
        self.connection.setText(f"● {text}")
        self.connection.setStyleSheet(f"color: {colour}; font-weight: bold;")
        self.connection.setToolTip(connection_tooltip(status))
        self.queue.setText(queue_text(status))
        self.flight.setText(flight_text(status))
        self.rate.setText(rate_text(status))
