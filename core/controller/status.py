"""What the controller tells its observers (GUI status bar, CLI): an immutable snapshot."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

log = logging.getLogger(__name__)


class Connection(StrEnum):
    connecting = "connecting"
    connected = "connected"
    reconnecting = "reconnecting"
    offline = "offline"


@dataclass(frozen=True)
class Progress:
    value: int
    max: int

    @property
    def fraction(self) -> float:
        return self.value / self.max if self.max else 0.0


@dataclass(frozen=True)
class ServerStatus:
    """One server's part of the controller's status."""

    server: str
    connection: Connection = Connection.connecting
    queue: int = 0  # ComfyUI's running + pending, all clients
    positions: dict[str, int] = field(default_factory=dict)  # our job id -> place (0 = running)
    progress: dict[str, Progress] = field(default_factory=dict)
    stalled: frozenset[str] = frozenset()  # our job ids running beyond the stall limit
    last_error: str = ""
    previews: dict[str, int] = field(default_factory=dict)  # running job id -> previews kept
    queue_depth: int = 0  # the prompts admission last let it hold: the cap, or deeper (auto)


@dataclass(frozen=True)
class ControllerStatus:
    """One moment of the controller's view of its servers (most people have one).

    Attributes:
        connection: connected, reconnecting (the WebSocket dropped), offline (HTTP fails); with
            several servers, the best of theirs (work goes on while one of them answers).
        server: the server's address (several: comma-separated).
        server_queue: ComfyUI's running + pending count, all clients (summed over servers).
        in_flight: our jobs queued or running in ComfyUI.
        paused: dispatch is paused.
        positions: job id -> place in ComfyUI's queue (0 = running, 1 = next, ...).
        progress: job id -> progress of the running node.
        previews: running job id -> how many previews were kept of it (the newest is the file
            ``previews.preview_file`` names; a window reloads it when the count moves).
        stalled: job ids running beyond the stall limit (ComfyUI may be stuck).
        done_per_minute: jobs finished in the last minute.
        last_error: the servers' latest error (ComfyUI unreachable or answering badly).
        local_error: a problem on this machine (the ledger busy, a bug) that the controller is
            retrying around, naming the loop it stopped; never the server's fault. Empty when
            all is well.
        output_full: the output folder that cannot take pictures (full, or not writable: the
            local error says which), while finished jobs wait for it (their pictures stay on
            the server; no new prompt is sent meanwhile); empty otherwise.
        notice_error: a batch's webhook failing (said once, until one is delivered again);
            empty when none fails.
        stopped: why the controller stopped (an error it cannot survive: a refused token, the
            ledger file not writable); empty while it runs.
        servers: each server's own status.
        started_at: when this controller took the lease, or a client began starting one
            (wall clock; 0: unknown). A job queued or running since before then, and not in
            ``positions``, may have moved on the server unseen.
    """

    connection: Connection = Connection.connecting
    server: str = ""
    server_queue: int = 0
    in_flight: int = 0
    global_cap: int = 3
    per_requester_cap: int = 3
    queue_depth: int = 0  # the deepest a server's queue was let go (short jobs: past the cap)
    paused: bool = False
    positions: dict[str, int] = field(default_factory=dict)
    progress: dict[str, Progress] = field(default_factory=dict)
    previews: dict[str, int] = field(default_factory=dict)
    stalled: frozenset[str] = frozenset()
    done_per_minute: float = 0.0
    last_error: str = ""
    local_error: str = ""
    output_full: str = ""
    notice_error: str = ""
    stopped: str = ""
    servers: tuple[ServerStatus, ...] = ()
    started_at: float = 0.0

    @property
    def capacity(self) -> int:
        """How many prompts ComfyUI may hold at once: the global cap on each server."""
        return self.global_cap * max(1, len(self.servers))


StatusListener = Callable[[ControllerStatus], None]


def tell(listeners: list[StatusListener], status: ControllerStatus) -> None:
    """Give ``status`` to each listener; one that fails is logged and the others still hear."""
    for listener in list(listeners):
        try:
            listener(status)
        except Exception:  # a broken observer must not stop the controller or the others
            log.exception("status listener failed")
