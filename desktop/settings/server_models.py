"""Settings' model section: each server's model files as the controller last read them (folder
and count, the files under it and in its tooltip), and "Refresh models", which asks the
controller to read them again through the window's command object."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QTimer, Slot
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
)

from core.comfy import server_address
from core.controller.placing_said import host_text, listing_counts
from core.ledger.settings import server_list

if TYPE_CHECKING:
    from collections.abc import Callable

    from core.ledger import Ledger
    from core.ledger.server_offers import StoredOffer

FILES_IN_TIP = 30  # a folder's tooltip lists this many files, then "and N more"
WATCH_MS = 500  # after Refresh, the lists are read again this often ...
WATCH_FOR_MS = 20_000  # ... until they change or this long has passed


class ModelRefresher(Protocol):
    """The command object's part this section uses (``LedgerCommands.refresh_models``)."""

    def refresh_models(self) -> None: ...


class ServerModels(QGroupBox):
    """One row per server (its models read when, node classes, folders' counts), a folder's
    files under it."""

    def __init__(
        self,
        ledger: Ledger,
        servers: Callable[[], list[str]],
        commands: ModelRefresher | None = None,
        parent: Any = None,
    ) -> None:
        super().__init__("Models on each server", parent)
        self._ledger = ledger
        self._servers = servers
        self._commands = commands
        self.tree = QTreeWidget(self)
        self.tree.setAccessibleName("Models on each server")
        self.tree.setHeaderLabels(["Server / folder", "Files"])
        self.tree.setRootIsDecorated(True)
        self.tree.setMinimumHeight(120)
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.note = QLabel(self)
        self.note.setWordWrap(True)
        self.refresh_button = QPushButton("Refresh &models", self)
        self.refresh_button.setToolTip(
            "Ask the controller to read every server's model lists again (after adding or "
            "removing a model file)"
        )
        self.refresh_button.clicked.connect(self.refresh_models)
        self.refresh_button.setEnabled(commands is not None)
        self._watch = QTimer(self)
        self._watch.setInterval(WATCH_MS)
        self._watch.timeout.connect(self._look_again)
        self._watched_for = 0
        self._seen: dict[str, float] = {}
        row = QHBoxLayout()
        row.addWidget(self.note, 1)
        row.addWidget(self.refresh_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tree)
        layout.addLayout(row)
        self.show_models()

    @Slot()
    def show_models(self) -> None:
        """Show the stored lists of the servers named now."""
        stored = self._ledger.server_offers.all()
        self._seen = {url: item.read_at for url, item in stored.items()}
        self.tree.clear()
        for url in self._servers():
            self.tree.addTopLevelItem(_server_item(url, stored.get(url)))

    @Slot()
    def refresh_models(self) -> None:
        """Ask for the lists again; show them as they come."""
        if self._commands is None:
            return
        self._commands.refresh_models()
        self.note.setText("Asked the controller to read every server's models again.")
        self._watched_for = 0
        self._watch.start()

    @Slot()
    def _look_again(self) -> None:
        self._watched_for += WATCH_MS
        read = {url: item.read_at for url, item in self._ledger.server_offers.all().items()}
        if read != self._seen or self._watched_for >= WATCH_FOR_MS:
            self._watch.stop()
            self.show_models()


def _server_item(url: str, stored: StoredOffer | None) -> QTreeWidgetItem:
    if stored is None:
        item = QTreeWidgetItem([host_text(url), "not read yet"])
        item.setToolTip(0, f"{url}: the controller reads its models when it connects")
        return item
    listing = stored.offer.listing()
    classes = len(stored.offer.node_classes)
    item = QTreeWidgetItem([host_text(url), listing_counts(listing)])
    item.setToolTip(0, f"{url}: read at {_clock(stored.read_at)}, {classes} node classes")
    item.setToolTip(1, "\n".join(f"{folder}: {len(files)}" for folder, files in listing.items()))
    for folder, files in listing.items():
        if not files:
            continue  # a folder ComfyUI knows, nothing in it
        child = QTreeWidgetItem([folder, str(len(files))])
        child.setToolTip(0, _files_tip(files))
        child.setToolTip(1, _files_tip(files))
        child.addChildren([QTreeWidgetItem([name, ""]) for name in files])
        item.addChild(child)
    return item


def _clock(at: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(at))


def _files_tip(files: list[str]) -> str:
    shown = files[:FILES_IN_TIP]
    more = len(files) - len(shown)
    return "\n".join(shown + ([f"and {more} more"] if more > 0 else [])) or "no files"


def configured_servers(text: str) -> list[str]:
    """The addresses a server field names, normalised (those it cannot read left out)."""
    urls = []
    for item in server_list(text):
        try:
            urls.append(server_address(item))
        except ValueError:
            continue
    return urls
