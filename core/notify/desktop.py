"""The desktop's own notifications: on Linux the freedesktop notification service on the
session bus (``org.freedesktop.Notifications``' Notify, with dbus-fast), elsewhere the
platform's (desktop-notifier: macOS's notification centre, Windows' toasts).

``send`` says how it went: "sent", or "no_server" when nothing on this desktop shows
notifications (no session bus, nobody owns the name): a window that is open shows its tray's
message then.
"""

from __future__ import annotations

import asyncio
import html
import logging
import sys
from typing import Any

log = logging.getLogger(__name__)

SENT = "sent"
NO_SERVER = "no_server"
APP_NAME = "Batchline"
NAME = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"
TIMEOUT_S = 5.0  # a bus or a notification server that does not answer in this is none
SHOWN_MS = -1  # the server's own default time on screen


class DesktopNotices:
    """Sends notifications to this desktop; ``bus_address`` another session bus than the
    environment's (tests)."""

    def __init__(self, bus_address: str | None = None) -> None:
        self.bus_address = bus_address
        self._other: Any = None  # desktop-notifier's, made on first use off Linux

    async def send(self, title: str, text: str) -> str:
        """Show ``title`` and ``text``; SENT or NO_SERVER (never raises for a missing or a
        broken notification server: it is logged once, at info, and NO_SERVER said)."""
        if sys.platform.startswith("linux") or self.bus_address is not None:
            return await self._freedesktop(title, text)
        return await self._platform(title, text)

    async def _freedesktop(self, title: str, text: str) -> str:
        from dbus_fast import DBusError, Message, MessageType, Variant
        from dbus_fast.aio import MessageBus
        from dbus_fast.errors import AuthError, InvalidAddressError

        try:
            # asyncio.timeout, not wait_for: on 3.11 wait_for may swallow a cancellation.
            async with asyncio.timeout(TIMEOUT_S):
                bus = await MessageBus(self.bus_address).connect()
        except (OSError, EOFError, ValueError, TimeoutError, DBusError, AuthError) as exc:
            log.info("no session bus for notifications: %s", exc or type(exc).__name__)
            return NO_SERVER
        except InvalidAddressError as exc:
            log.info("no session bus for notifications: %s", exc)
            return NO_SERVER
        try:

            async def call(member: str, signature: str = "", body: list[Any] | None = None) -> Any:
                message = Message(
                    destination=NAME,
                    path=PATH,
                    interface=NAME,
                    member=member,
                    signature=signature,
                    body=body or [],
                )
                async with asyncio.timeout(TIMEOUT_S):
                    return await bus.call(message)

            caps = await call("GetCapabilities")
            if caps is None or caps.message_type is MessageType.ERROR:
                log.info("no notification server on the session bus: %s", _said(caps))
                return NO_SERVER
            if "body-markup" in (caps.body[0] if caps.body else []):
                text = html.escape(text, quote=False)
            hints = {"urgency": Variant("y", 1), "desktop-entry": Variant("s", "batchline")}
            body = [APP_NAME, 0, "batchline", title, text, [], hints, SHOWN_MS]
            reply = await call("Notify", "susssasa{sv}i", body)
            if reply is None or reply.message_type is MessageType.ERROR:
                log.info("the notification server refused a notification: %s", _said(reply))
                return NO_SERVER
            return SENT
        except (OSError, EOFError, TimeoutError, DBusError) as exc:
            log.info("the notification server did not answer: %s", exc or type(exc).__name__)
            return NO_SERVER
        finally:
            bus.disconnect()
            await bus.wait_for_disconnect()  # type: ignore[no-untyped-call]

    async def _platform(self, title: str, text: str) -> str:  # pragma: no cover (not Linux)
        from desktop_notifier import DesktopNotifier

        if self._other is None:
            self._other = DesktopNotifier(app_name=APP_NAME)
        await self._other.send(title=title, message=text)
        return SENT


def _said(reply: Any) -> str:
    if reply is None:
        return "no answer"
    return str(reply.error_name or "") + (f": {reply.body[0]}" if reply.body else "")
