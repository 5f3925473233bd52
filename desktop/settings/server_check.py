"""Whether a ComfyUI answers at an address, and its version: asked from the settings dialog
without freezing it (the request runs in a thread; the dialog keeps painting)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import httpx
from PySide6.QtCore import QEventLoop

from core.comfy.http_errors import plain_reason
from core.comfy.token_store import client_for
from core.controller.placing_said import host_text
from core.errors import BatchlineError
from desktop.common.off_thread import OffThread

CHECK_TIMEOUT = httpx.Timeout(3.0)


@dataclass(frozen=True)
class ServerCheck:
    """What an address answered: ``version`` when a ComfyUI answered, else ``error`` (in plain
    words) and ``detail`` (the technical error, for a tooltip and the log)."""

    server: str
    reachable: bool
    version: str | None = None
    error: str = ""
    detail: str = ""

    def line(self) -> str:
        """One line for the artist."""
        host = host_text(self.server)
        if self.reachable:
            return f"ComfyUI {self.version or '(version not said)'} answers at {host}."
        return f"No ComfyUI answers at {host}: {self.error}."


async def check_server(server: str, token: str = "") -> ServerCheck:
    """Ask ``/system_stats`` at ``server`` (with ``token``, else the stored one)."""
    try:
        async with client_for(server, token=token, timeout=CHECK_TIMEOUT) as client:
            stats = await client.system_stats()
    except (BatchlineError, ValueError) as exc:
        detail = str(exc) or type(exc).__name__
        reason = plain_reason(exc, CHECK_TIMEOUT.read)
        return ServerCheck(server, False, error=reason or detail, detail=detail)
    return ServerCheck(server, True, stats.comfyui_version)


def check_servers_waiting(servers: list[str], token: str = "") -> list[ServerCheck]:
    """``check_server`` for each, in a thread of its own; the Qt events go on meanwhile."""

    async def all_of() -> list[ServerCheck]:
        return list(await asyncio.gather(*(check_server(s, token) for s in servers)))

    def in_a_loop_of_its_own() -> list[ServerCheck]:
        # Not asyncio.run: on Python 3.11 qasync.run's policy would make it a Qt loop, which
        # cannot run outside the GUI thread ("Event loop stopped before Future completed").
        with asyncio.Runner(loop_factory=asyncio.DefaultEventLoopPolicy().new_event_loop) as r:
            return r.run(all_of())

    pool = OffThread("server-check", 1, expected=(Exception,))
    answers: list[list[ServerCheck]] = []
    errors: list[Exception] = []
    loop = QEventLoop()
    pool.done.connect(lambda _key, checks: answers.append(checks))
    pool.failed.connect(lambda _key, exc: errors.append(exc))
    pool.done.connect(loop.quit)  # queued to this thread, so never before exec() below
    pool.failed.connect(loop.quit)
    pool.submit(None, in_a_loop_of_its_own)
    loop.exec()
    pool.shutdown()
    pool.deleteLater()
    if errors:
        raise errors[0]
    return answers[0]
