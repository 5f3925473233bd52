"""A real D-Bus session bus for tests, with a fake freedesktop notification server on it.

``SessionBus`` runs ``dbus-daemon --session --print-address --nofork`` (a bus of the test's
own, never the desktop's); ``FakeNotificationServer`` owns ``org.freedesktop.Notifications``
on it (written with dbus-fast, as Batchline's sender is) and keeps every Notify it was given.
It runs on an event loop in a thread of its own, so that asyncio tests and Qt tests alike can
use it.
"""

# ruff: noqa: F722, F821, UP037 (dbus-fast reads D-Bus signatures from the annotations)
from __future__ import annotations

import asyncio
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dbus_fast.aio import MessageBus
from dbus_fast.service import ServiceInterface, method

NAME = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"


def dbus_daemon() -> str | None:
    return shutil.which("dbus-daemon")


class SessionBus:
    """A private session bus: ``address`` to connect to; ``stop`` ends it."""

    def __init__(self, folder: Path) -> None:
        daemon = dbus_daemon()
        assert daemon is not None
        self.process = subprocess.Popen(
            [
                daemon,
                "--session",
                "--print-address",
                "--nofork",
                "--nopidfile",
                f"--address=unix:path={folder / 'bus'}",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        self.address = self.process.stdout.readline().strip()
        if not self.address:
            self.stop()
            raise RuntimeError(f"dbus-daemon did not start: {self.process.stderr}")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


@dataclass(frozen=True)
class Shown:
    """One Notify call the fake server was given."""

    app_name: str
    summary: str
    body: str
    hints: dict[str, Any]


class _Notifications(ServiceInterface):
    def __init__(self, server: FakeNotificationServer) -> None:
        super().__init__(NAME)
        self._server = server

    @method()
    def GetCapabilities(self) -> "as":
        return ["body"]

    @method()
    def Notify(
        self,
        app_name: "s",
        replaces_id: "u",
        app_icon: "s",
        summary: "s",
        body: "s",
        actions: "as",
        hints: "a{sv}",
        expire_timeout: "i",
    ) -> "u":
        return self._server.record(Shown(app_name, summary, body, dict(hints)))

    @method()
    def GetServerInformation(self) -> "ssss":
        return ["fake", "batchline-tests", "1", "1.2"]


class FakeNotificationServer:
    """``org.freedesktop.Notifications`` on the bus at ``address``: ``shown`` lists what it was
    asked to show; ``wait_for(n)`` waits until it holds ``n``."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.shown: list[Shown] = []
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._loop = asyncio.SelectorEventLoop()  # a plain one, whatever the policy (qasync)
        self._stopped: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._serve, name="fake notifications", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the fake notification server did not start")

    def record(self, shown: Shown) -> int:
        with self._lock:
            self.shown.append(shown)
            return len(self.shown)

    def count(self) -> int:
        with self._lock:
            return len(self.shown)

    def wait_for(self, count: int, timeout: float = 30.0) -> list[Shown]:
        deadline = time.monotonic() + timeout
        while self.count() < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.count()} notifications shown, not {count}")
            time.sleep(0.02)
        with self._lock:
            return list(self.shown)

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(self._main())
        self._loop.close()

    async def _main(self) -> None:
        self._stopped = asyncio.Event()
        bus = await MessageBus(self.address).connect()
        bus.export(PATH, _Notifications(self))
        await bus.request_name(NAME)
        self._ready.set()
        await self._stopped.wait()
        bus.disconnect()
        await bus.wait_for_disconnect()

    def stop(self) -> None:
        stopped = self._stopped
        if stopped is not None:
            self._loop.call_soon_threadsafe(stopped.set)
        self._thread.join(10)
