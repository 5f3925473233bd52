"""The controller's notice board in the ledger: which controller runs, its latest status, and
whether a client asked it to stop (now, or once no job is left).

One row: each controller that takes the lease replaces it. The status is JSON the ledger does not
read (``core.controller.published`` writes and reads it), so any client (the window, the CLI, the
HTTP API) can show what the controller sees without talking to its process.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.ledger import schema

if TYPE_CHECKING:
    from core.ledger.handle import LedgerHandle

_ROW = 1


@dataclass(frozen=True, slots=True)
class ControllerRunRecord:
    """The running (or last) controller of a ledger.

    ``origin``: "app" when the desktop app started it in the background (the app may stop it
    when it has nothing left to do), "terminal" when someone started it by hand.
    """

    run_id: str
    pid: int
    origin: str
    started_at: float
    updated_at: float
    stopped_at: float | None
    status: dict[str, Any]
    stop_requested: bool
    exit_when_idle: bool


class ControllerRunStore:
    """Read and write the controller's row."""

    def __init__(self, handle: LedgerHandle) -> None:
        self._handle = handle

    def begin(self, run_id: str, pid: int, origin: str, status: dict[str, Any]) -> None:
        """A new controller took the lease: its row replaces the last one's."""
        now = self._handle.now()
        with self._handle.tx():
            schema.ControllerRun.insert(
                id=_ROW,
                run_id=run_id,
                pid=pid,
                origin=origin,
                started_at=now,
                updated_at=now,
                status_json=json.dumps(status),
                stop_requested=False,
                exit_when_idle=False,
            ).on_conflict_replace().execute()

    def publish(self, run_id: str, status: dict[str, Any], *, stopped: bool = False) -> None:
        """The controller ``run_id``'s latest status (nothing if another one replaced it)."""
        now = self._handle.now()
        fields: dict[Any, Any] = {
            schema.ControllerRun.status_json: json.dumps(status),
            schema.ControllerRun.updated_at: now,
        }
        if stopped:
            fields[schema.ControllerRun.stopped_at] = now
        with self._handle.tx():
            schema.ControllerRun.update(fields).where(
                schema.ControllerRun.run_id == run_id
            ).execute()

    def request_stop(self, run_id: str | None = None) -> bool:
        """Ask the running controller (only ``run_id``, if given) to stop; whether one was asked."""
        query = schema.ControllerRun.update(stop_requested=True).where(
            schema.ControllerRun.stopped_at.is_null()
        )
        if run_id is not None:
            query = query.where(schema.ControllerRun.run_id == run_id)
        with self._handle.tx():
            return bool(query.execute())

    def exit_when_idle(self, run_id: str, exit_when_idle: bool) -> bool:
        """Let the controller ``run_id`` stop by itself once no job is left (its window went to
        the tray), or not (a window attached again); whether it is still running."""
        query = schema.ControllerRun.update(exit_when_idle=exit_when_idle).where(
            schema.ControllerRun.run_id == run_id, schema.ControllerRun.stopped_at.is_null()
        )
        with self._handle.tx():
            return bool(query.execute())

    def current(self) -> ControllerRunRecord | None:
        """The row, or None if no controller ever ran on this ledger."""
        return self._read("id = ?", _ROW)

    def of_run(self, run_id: str) -> ControllerRunRecord | None:
        """The row while it is ``run_id``'s (None once another controller replaced it)."""
        return self._read("run_id = ?", run_id)

    def _read(self, where: str, value: Any) -> ControllerRunRecord | None:
        """The row matching ``where`` (one parameter), read with a plain statement: a running
        controller asks for it several times a second."""
        with self._handle.read():
            sql = f"SELECT {_COLUMNS} FROM controller_run WHERE {where}"
            row = self._handle.database.execute_sql(sql, (value,)).fetchone()
        if row is None:
            return None
        run_id, pid, origin, started, updated, stopped, status, stop, idle = row
        return ControllerRunRecord(
            run_id=run_id,
            pid=pid,
            origin=origin,
            started_at=started,
            updated_at=updated,
            stopped_at=stopped,
            status=json.loads(status),
            stop_requested=bool(stop),
            exit_when_idle=bool(idle),
        )


_COLUMNS = (
    "run_id, pid, origin, started_at, updated_at, stopped_at, status_json, stop_requested,"
    " exit_when_idle"
)
