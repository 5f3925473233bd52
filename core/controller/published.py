"""The controller's status, published in the ledger so that any client can show it.

The controller writes its latest ``ControllerStatus`` into the ledger's controller row at most
every ``PUBLISH_INTERVAL_S`` (progress changes at every sampler step) and at least every
``HEARTBEAT_S``; a client reads it back (``read_published``) without talking to its process.
"""

from __future__ import annotations

import os
import time
import uuid
from dataclasses import asdict, dataclass, fields
from typing import TYPE_CHECKING, Any

from core.controller.status import Connection, ControllerStatus, Progress, ServerStatus
from core.ledger.windows import windows_open

if TYPE_CHECKING:
    from collections.abc import Callable

    from core.ledger import Ledger

PUBLISH_INTERVAL_S = 0.2
HEARTBEAT_S = 2.0
# A controller whose row has not been written for this long is taken for dead (killed without
# a word); the lease says so at once, this covers clients that do not look at the lease.
SILENT_AFTER_S = 3 * HEARTBEAT_S
# A controller that may stop once no job is left waits this long with none first: a window
# opening meanwhile keeps it.
IDLE_GRACE_S = 10.0
APP, TERMINAL = "app", "terminal"


def status_to_json(status: ControllerStatus) -> dict[str, Any]:
    data = asdict(status)
    data["stalled"] = sorted(status.stalled)
    for server in data["servers"]:
        server["stalled"] = sorted(server["stalled"])
    return data


def status_from_json(data: dict[str, Any]) -> ControllerStatus:
    """The status a controller published (keys a newer or older version wrote are skipped)."""
    known = _known(ControllerStatus, data)
    known["connection"] = _connection(known.get("connection"))
    known["progress"] = _progress(known.get("progress", {}))
    known["stalled"] = frozenset(known.get("stalled", ()))
    known["servers"] = tuple(_server(item) for item in known.get("servers", ()))
    return ControllerStatus(**known)


def _server(data: dict[str, Any]) -> ServerStatus:
    known = _known(ServerStatus, data)
    known["connection"] = _connection(known.get("connection"))
    known["progress"] = _progress(known.get("progress", {}))
    known["stalled"] = frozenset(known.get("stalled", ()))
    return ServerStatus(**known)


def _known(kind: type, data: dict[str, Any]) -> dict[str, Any]:
    names = {field.name for field in fields(kind)}
    return {key: value for key, value in data.items() if key in names}


def _connection(value: Any) -> Connection:
    try:
        return Connection(value)
    except ValueError:
        return Connection.connecting


def _progress(data: dict[str, Any]) -> dict[str, Progress]:
    return {job: Progress(int(p["value"]), int(p["max"])) for job, p in data.items()}


@dataclass(frozen=True)
class Published:
    """What a client knows of the ledger's controller from the ledger alone."""

    status: ControllerStatus
    run_id: str
    pid: int
    origin: str
    updated_at: float
    stopped: bool  # it said it stopped (or was asked to and did)

    def silent(self, now: float) -> bool:
        """Whether it stopped writing without saying it stopped (killed, or hung)."""
        return not self.stopped and now - self.updated_at > SILENT_AFTER_S


def read_published(ledger: Ledger) -> Published | None:
    """The ledger's controller as it last published itself; None if none ever ran."""
    row = ledger.controller_runs.current()
    if row is None:
        return None
    return Published(
        status=status_from_json(row.status),
        run_id=row.run_id,
        pid=row.pid,
        origin=row.origin,
        updated_at=row.updated_at,
        stopped=row.stopped_at is not None,
    )


class StatusPublisher:
    """Writes one controller's status into the ledger, and reads the stop requests for it."""

    def __init__(self, ledger: Ledger, origin: str = TERMINAL) -> None:
        self.ledger = ledger
        self.origin = origin
        self.run_id = ""
        self._written: ControllerStatus | None = None
        self._written_at = 0.0
        self._idle_since: float | None = None

    def new_run(self) -> None:
        """This controller took the lease: its row replaces the last controller's at the next
        ``flush`` (a busy ledger must not keep it from starting)."""
        self.run_id = uuid.uuid4().hex
        self._written = None
        self._idle_since = None

    def flush(self, status: ControllerStatus) -> None:
        """Write ``status`` if it changed and the last write is ``PUBLISH_INTERVAL_S`` old, or
        if the heartbeat is due (the first time: the run's row)."""
        runs = self.ledger.controller_runs
        if self._written is None:
            runs.begin(self.run_id, os.getpid(), self.origin, status_to_json(status))
        else:
            since = time.monotonic() - self._written_at
            changed = status != self._written
            if not ((changed and since >= PUBLISH_INTERVAL_S) or since >= HEARTBEAT_S):
                return
            runs.publish(self.run_id, status_to_json(status))
        self._written, self._written_at = status, time.monotonic()

    def end(self, status: ControllerStatus) -> None:
        """This controller stopped (cleanly, or for an error it says in ``status.stopped``)."""
        runs = self.ledger.controller_runs
        if self._written is None:  # it stopped before its first write: a client sees why
            runs.begin(self.run_id, os.getpid(), self.origin, status_to_json(status))
        runs.publish(self.run_id, status_to_json(status), stopped=True)

    def stop_reason(self, has_active_jobs: Callable[[], bool]) -> str:
        """Why this controller should stop ("" if it should not): a client asked it to stop
        now; or it may stop once no job is left (asked to by a window closing to the tray, or
        started by the app and no window watches it any more) and none has been for
        ``IDLE_GRACE_S``."""
        row = self.ledger.controller_runs.of_run(self.run_id)
        if row is None:
            return ""
        if row.stop_requested:
            return "asked to through the ledger"
        if (
            not (row.exit_when_idle or self.origin == APP)
            or has_active_jobs()
            or (not row.exit_when_idle and windows_open(self.ledger.folder))
        ):
            self._idle_since = None
            return ""
        now = time.monotonic()
        if self._idle_since is None:
            self._idle_since = now
        if now - self._idle_since >= IDLE_GRACE_S:
            return "no job is left and no window is open"
        return ""
