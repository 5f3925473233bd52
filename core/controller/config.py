"""The controller's knobs, with DESIGN.md's defaults; stored in the ledger's settings."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields, replace
from typing import TYPE_CHECKING, Any

from core.controller.outputs import MAX_PICTURES_PER_JOB
from core.errors import InputError

if TYPE_CHECKING:
    from core.ledger import Ledger

DEFAULT_SERVER = "http://127.0.0.1:8188"
SETTINGS_KEY = "controller"
PAUSED_KEY = "dispatch.paused"  # the setting that pauses dispatch (shared by GUI and CLI)


def server_list(text: str) -> list[str]:
    """The servers of a setting or ``--server`` value: one address, or several separated by
    commas or spaces (one controller drives them all); repeats dropped, order kept."""
    servers = [part.strip() for part in text.replace(",", " ").split()]
    return list(dict.fromkeys(server for server in servers if server))


@dataclass(frozen=True)
class ControllerConfig:
    """Caps, intervals and limits of one controller.

    Attributes:
        global_cap: ComfyUI running + pending (all clients) at which we stop submitting: a
            ceiling, never exceeded unless the deep queue is on.
        per_requester_cap: queued + running jobs one requester may have at once.
        deep_queue: off by default; on, very short jobs get more prompts waiting in ComfyUI
            than the global cap so that the GPU never idles between polls.
        max_queue_depth: the deep queue's ceiling: ComfyUI running + pending (all clients)
            never exceeds it (nor the global cap, when that is higher).
        max_attempts: automatic attempts per job.
        poll_active_s / poll_idle_s: /queue + /history polling while jobs are active / idle.
        grace_s: how long a prompt may be in neither queue nor history before it counts as gone.
        settle_s: how long an attempt whose submission got no answer is looked up before a
            new attempt opens, counted from when it was written (the 30 s request timeout plus
            twice that: ComfyUI may queue a prompt long after the client gave up).
        max_pictures_per_job: the most pictures downloaded for one job (a workflow saving
            thousands would fill the folder); the rest are left on the server, and the job says so.
        stall_s: a prompt running longer than this is flagged stalled (never failed).
        offline_first_s / offline_max_s: first and longest wait between tries while the
            server is unreachable (exponential in between, jittered).
    """

    global_cap: int = 3
    per_requester_cap: int = 3
    deep_queue: bool = False
    max_queue_depth: int = 8
    max_attempts: int = 3
    poll_active_s: float = 1.0
    poll_idle_s: float = 5.0
    grace_s: float = 10.0
    settle_s: float = 90.0
    max_pictures_per_job: int = MAX_PICTURES_PER_JOB
    stall_s: float = 30 * 60.0
    offline_first_s: float = 1.0
    offline_max_s: float = 30.0

    def __post_init__(self) -> None:
        counts = ("global_cap", "per_requester_cap", "max_attempts", "max_queue_depth")
        for name in (*counts, "max_pictures_per_job"):
            if getattr(self, name) < 1:
                raise InputError(f"{name.replace('_', '-')} must be at least 1")
        positive = ("poll_active_s", "poll_idle_s", "grace_s", "settle_s", "stall_s")
        for name in (*positive, "offline_first_s"):
            value = getattr(self, name)
            if not math.isfinite(value) or value <= 0:
                raise InputError(f"{name} must be a positive number of seconds, not {value}")

    def with_overrides(self, **overrides: Any) -> ControllerConfig:
        """A copy with the given fields replaced (None values are ignored)."""
        return replace(self, **{k: v for k, v in overrides.items() if v is not None})

    @classmethod
    def from_settings(cls, ledger: Ledger) -> ControllerConfig:
        stored = ledger.settings.get(SETTINGS_KEY, {})
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in stored.items() if k in known})

    def save(self, ledger: Ledger) -> None:
        ledger.settings.set(SETTINGS_KEY, asdict(self))
