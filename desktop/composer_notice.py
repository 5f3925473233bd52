"""What the composer says of a batch: where its jobs would stand in line and when they would
be done (from ComfyUI's current queue and recent run times), and what queueing did."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.controller.status import Connection
from core.durations import duration_text
from core.errors import BatchTooLarge, QueueBusy
from core.estimate import live_estimate

if TYPE_CHECKING:
    from collections.abc import Callable

    from core.controller.status import ControllerStatus
    from core.ledger import Ledger


def admission_notice(
    ledger: Ledger, status: ControllerStatus, count: int, priority: int = 0
) -> str:
    """Empty when the jobs (of ``priority``) can all start soon; else their place in line and
    the wait."""
    if count <= 0:
        return ""
    servers = max(1, len(status.servers))
    queue, flight = status.server_queue, status.in_flight
    last, wait_s = live_estimate(ledger, queue, flight, servers, count, priority)
    cap = status.capacity
    if last <= cap:
        return ""
    who = f"your {servers} servers get" if servers > 1 else "ComfyUI gets"
    first = max(1, last - count + 1)
    place = f"#{last}" if count == 1 else f"#{first}–#{last}"
    subject = "This job" if count == 1 else f"These {count} jobs"
    done = (
        f"the last would be done in about {duration_text(wait_s)}"
        if wait_s is not None
        else "the wait is estimated once a job has finished"
    )
    return f"{subject} would stand {place} in line ({who} {cap} at a time); {done}."


def refusal_notice(room: Callable[[str, int], None], requester: str, count: int) -> str:
    """Empty when Queue would take these jobs now; else why it would refuse them, and when
    there would be room. ``room`` is the check Queue makes (the controller's ``room()``, as
    `batchline queue` and the API make it), here made before Queue."""
    if count <= 0:
        return ""
    try:
        room(requester, count)
    except BatchTooLarge as exc:
        return f"Too many at once: {exc}."
    except QueueBusy as exc:
        when = (
            f"there is room in about {duration_text(exc.estimated_wait_s)}"
            if exc.estimated_wait_s is not None
            else "there is room once some have finished"
        )
        return f"Not now: {exc.why}, so these {count} jobs would be refused; {when}."
    return ""


def queued_message(count: int, batch_id: str, status: ControllerStatus) -> str:
    """ "Queued 3 jobs as …", saying when they wait for a server that does not answer."""
    jobs = f"{count} job{'s' if count != 1 else ''}"
    if is_offline(status):
        they = "it waits" if count == 1 else "they wait"
        why = status.stopped or "ComfyUI does not answer"
        return f"Queued {jobs} as {batch_id}; {they} for the server ({why})."
    return f"Queued {jobs} as {batch_id}."


def is_offline(status: ControllerStatus) -> bool:
    """No job can be sent now: no controller runs, or the server does not answer."""
    return bool(status.stopped) or status.connection is Connection.offline
