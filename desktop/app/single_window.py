"""One window per data folder: launching Batchline again brings the open window forward
(from the tray too) instead of opening a second one on the same ledger."""

from __future__ import annotations

import hashlib
import os
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtNetwork import QLocalServer, QLocalSocket

if TYPE_CHECKING:
    from pathlib import Path

SHOW, SHOWN = b"show\n", b"shown\n"
ANSWER_MS = 1000  # an open window answers at once; one that does not is taken for gone


def beacon_name(folder: Path) -> str:
    """The local socket an open window on ``folder`` listens on (per user and folder)."""
    digest = hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:16]
    user = os.getuid() if hasattr(os, "getuid") else os.getlogin()
    return f"batchline-{user}-{digest}"


def hand_over(folder: Path) -> bool:
    """Ask the window open on ``folder`` to come forward; True when one said it did."""
    socket = QLocalSocket()
    socket.connectToServer(beacon_name(folder))
    try:
        if not socket.waitForConnected(ANSWER_MS):
            return False
        socket.write(SHOW)
        socket.waitForBytesWritten(ANSWER_MS)
        while socket.bytesAvailable() < len(SHOWN) and socket.waitForReadyRead(ANSWER_MS):
            pass
        return bytes(socket.readAll().data()) == SHOWN
    finally:
        socket.abort()


class WindowBeacon(QObject):
    """Listens for later launches on the same data folder and asks for the window.

    Signals:
        show_requested(): another launch wants this window in front.
    """

    show_requested = Signal()

    def __init__(self, folder: Path, parent: Any = None) -> None:
        super().__init__(parent)
        self._server = QLocalServer(self)
        self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self._server.newConnection.connect(self._accept)
        self._name = beacon_name(folder)

    def listen(self) -> bool:
        """Start listening; a socket file a crashed window left behind is removed first (call
        only after `hand_over` found no window answering)."""
        QLocalServer.removeServer(self._name)
        return self._server.listen(self._name)

    def close(self) -> None:
        self._server.close()

    @Slot()
    def _accept(self) -> None:
        while (socket := self._server.nextPendingConnection()) is not None:
            socket.readyRead.connect(lambda s=socket: self._answer(s))
            socket.disconnected.connect(socket.deleteLater)

    def _answer(self, socket: QLocalSocket) -> None:
        if socket.canReadLine() and bytes(socket.readLine().data()) == SHOW:
            self.show_requested.emit()
            socket.write(SHOWN)
            socket.flush()
