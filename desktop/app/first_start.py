"""The first start (no server set yet): what answers at ComfyUI's usual address, said to the
artist, who chooses to use it, to try the built-in demo, or to set an address in Settings."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

import httpx
from PySide6.QtWidgets import QDialog, QMessageBox

from core.comfy import ComfyClient
from core.controller.placing_said import host_text
from core.errors import BatchlineError, ComfyConnectionError

if TYPE_CHECKING:
    from core.ledger import Ledger

LOOK_TIMEOUT = httpx.Timeout(2.0)


class Seen(StrEnum):
    """What answered at the address."""

    comfyui = "comfyui"
    not_comfyui = "not_comfyui"  # something answered, not as ComfyUI does
    nothing = "nothing"  # no connection


class FirstChoice(StrEnum):
    use = "use"  # the ComfyUI found
    demo = "demo"  # the built-in demo server, this time
    settings = "settings"  # another address, in Settings


@dataclass(frozen=True)
class Found:
    """What ``look_at`` found at ``server``; ``version``: the ComfyUI's, when it said it."""

    server: str
    seen: Seen
    version: str = ""

    def line(self) -> str:
        """One sentence for the artist."""
        host = host_text(self.server)
        if self.seen is Seen.comfyui:
            return f"Found ComfyUI {self.version or '(version not said)'} at {host}."
        if self.seen is Seen.not_comfyui:
            return f"Something answered at {host} that is not ComfyUI."
        return f"Nothing answers at {host}, where ComfyUI usually is."


async def look_at(server: str) -> Found:
    """Ask ``/system_stats`` at ``server``: a ComfyUI, something else, or nothing."""
    try:
        async with ComfyClient(server, timeout=LOOK_TIMEOUT) as client:
            stats = await client.system_stats()
    except ComfyConnectionError:  # refused, or the connection broke before any answer
        return Found(server, Seen.nothing)
    except (BatchlineError, ValueError):  # an answer, but not ComfyUI's (a page, a 404...)
        return Found(server, Seen.not_comfyui)
    return Found(server, Seen.comfyui, stats.comfyui_version or "")


_NEXT = {
    Seen.comfyui: "Use it, try Batchline on its built-in demo server first, or set another "
    "address in Settings.",
    Seen.not_comfyui: "Set your ComfyUI's address in Settings, or try Batchline on its "
    "built-in demo server.",
    Seen.nothing: "Start ComfyUI and set its address in Settings, or try Batchline on its "
    "built-in demo server.",
}


class FirstStartQuestion:
    """The question of the first start, asked without blocking the event loop (the window's
    controller and the demo's server run meanwhile)."""

    USE_TEXT = "Use this ComfyUI"
    DEMO_TEXT = "Try the demo"
    SETTINGS_TEXT = "Settings…"

    @classmethod
    def box(cls, found: Found) -> QMessageBox:
        """The question for what was found (only a ComfyUI found can be used)."""
        box = QMessageBox()
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle("Welcome to Batchline")
        box.setText(found.line())
        box.setInformativeText(_NEXT[found.seen])
        demo = box.addButton(cls.DEMO_TEXT, QMessageBox.ButtonRole.RejectRole)
        box.addButton(cls.SETTINGS_TEXT, QMessageBox.ButtonRole.ActionRole)
        if found.seen is Seen.comfyui:
            box.setDefaultButton(box.addButton(cls.USE_TEXT, QMessageBox.ButtonRole.AcceptRole))
        else:
            box.setDefaultButton(demo)
        box.setEscapeButton(demo)  # closing it tries the demo, as a start with nothing did
        return box

    @classmethod
    async def ask(cls, found: Found) -> FirstChoice:
        """Show the question; the artist's choice (tests patch this)."""
        box = cls.box(found)
        answered: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        box.finished.connect(lambda code: _settle(answered, code))
        box.open()
        try:
            await answered
            clicked = box.clickedButton()
            text = clicked.text() if clicked is not None else ""
        finally:
            box.deleteLater()
        if text == cls.USE_TEXT:
            return FirstChoice.use
        return FirstChoice.settings if text == cls.SETTINGS_TEXT else FirstChoice.demo


async def edit_settings(ledger: Ledger) -> bool:
    """The settings dialog of the artist's ledger, without blocking the event loop; whether
    they were saved (tests patch this)."""
    from desktop.settings.settings_dialog import SettingsDialog

    dialog = SettingsDialog(ledger)
    done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    dialog.finished.connect(lambda code: _settle(done, code))
    dialog.open()
    try:
        saved = await done == QDialog.DialogCode.Accepted.value
        if saved:
            dialog.apply()
    finally:
        dialog.hide()
        dialog.deleteLater()
    return saved


def _settle(future: asyncio.Future[int], code: int) -> None:
    if not future.done():
        future.set_result(code)
