"""What the controller knows of one server between ticks, in one place.

Each ``ServerLink`` owns one ``ServerState`` and passes it to its dispatcher and reconciler,
which keep only their own bookkeeping (the round-robin cursor; how long a prompt has been
missing, when a cancel was last pushed). Whatever one of them learns about the server (it may
have restarted, it kept a prompt id of ours, a prompt is being posted) is written here, and the
others read it here.

One commit path: the observations of a tick are held in ``held`` and committed together at the
end of the tick (or with the next burst of submissions, in its transaction). Only these are
written at once, each for the reason given:

- a submission (``Ledger.submit_attempt``): an attempt is committed before its POST is sent,
  so that a lost answer can be looked up by its prompt_id rather than sent again;
- a success, with where it left its pictures (``Ledger.observe_succeeded``,
  ``observe_late_success``): recorded before the pictures are fetched, since ComfyUI forgets
  its history when it restarts but keeps its output folder;
- the pause the controller sets itself when a server ignores our prompt ids: it must stop the
  next submission of the same tick, which reads it in its own transaction.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from core.controller.group_commit import GroupCommit
from core.controller.socket_outcomes import SocketOutcomes

if TYPE_CHECKING:
    from collections.abc import Callable

    from core.ledger import Ledger
    from core.placement.needs import ModelKey
    from core.placement.server_offer import ServerOffer

RECENT_DURATIONS = 20  # run times kept for the typical one (the deep queue's target)
RECENT_FINISHES = 200  # finish times kept for the jobs-per-minute rate


@dataclass
class ServerState:
    """One server as the controller knows it (see the module's docstring)."""

    url: str
    held: GroupCommit  # the tick's observations, committed together
    epoch: int = 0  # bumped whenever the server may have restarted
    seen_epoch: dict[str, int] = field(default_factory=dict)  # prompt_id -> epoch last seen
    ours: dict[str, str] = field(default_factory=dict)  # prompt_id -> job id, live here
    posting: set[str] = field(default_factory=set)  # prompt ids whose POST is unanswered
    honours_ids: int = -1  # the epoch in which the server kept a prompt id of ours
    highest_number: float = -1  # the highest queue number it gave us (a lower one: restarted)
    socket: SocketOutcomes = field(default_factory=SocketOutcomes)  # successes seen whole
    output_full: bool = False  # the last download found no room: nothing more is sent
    durations: deque[float] = field(default_factory=lambda: deque(maxlen=RECENT_DURATIONS))
    finished_at: deque[float] = field(default_factory=lambda: deque(maxlen=RECENT_FINISHES))
    # What it can run (its /object_info), read in epoch ``offer_epoch`` at ``offer_read_at``
    # (the ledger's clock); nothing is sent to it until it is read in the current epoch.
    offer: ServerOffer | None = None
    offer_epoch: int = -1
    offer_read_at: float = 0.0
    loaded: ModelKey = frozenset()  # the main models of the last job sent to it
    answering: bool = False  # its last tick read its queue (it takes jobs)
    queue_depth: int = 0  # how many prompts admission last let it hold (the cap, or deeper)

    @property
    def offer_fresh(self) -> bool:
        """Its offer was read since it last may have restarted (a restart may bring files)."""
        return self.offer is not None and self.offer_epoch == self.epoch

    def stale_offer(self) -> None:
        """Read its offer again before sending it anything more (it refused a listed model)."""
        self.offer_epoch = -1

    @classmethod
    def of(cls, ledger: Ledger, url: str) -> ServerState:
        return cls(url, GroupCommit(ledger))

    def hold(self, verb: Callable[..., object], *args: Any) -> None:
        """An observation (a ledger verb and its arguments), committed with the tick's."""
        self.held.add(partial(verb, *args))

    def may_have_restarted(self) -> None:
        """The server may have restarted (an outage, a dropped socket, a lower queue number):
        prompts of ours that vanish from now on count as lost, not removed by someone else."""
        self.epoch += 1

    def seen(self, prompt_id: str) -> None:
        """The server has ``prompt_id`` now (it just accepted it, or a lookup found it)."""
        self.seen_epoch[prompt_id] = self.epoch

    def seen_since_restart(self, prompt_id: str) -> bool:
        """Whether the server showed ``prompt_id`` since it last may have restarted."""
        return self.seen_epoch.get(prompt_id, -1) >= self.epoch

    def forget(self, prompt_id: str) -> None:
        self.seen_epoch.pop(prompt_id, None)

    def accepted(self, prompt_id: str, number: float) -> None:
        """It answered a POST of ours with ``prompt_id`` and queue ``number``: it keeps our ids
        (until it may restart), and a number lower than one it gave before means it restarted."""
        if number < self.highest_number:
            self.may_have_restarted()  # ComfyUI's counter started again
        self.highest_number = max(self.highest_number, number)
        self.honours_ids = self.epoch
        self.seen(prompt_id)

    @property
    def keeps_our_ids(self) -> bool:
        """It kept a prompt id of ours since it last may have restarted."""
        return self.honours_ids == self.epoch
