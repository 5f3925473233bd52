"""What the composer says of a batch: where its jobs would stand in line and when they would
be done (`core.controller.line_now`: the figures `batchline queue` and the API give), what
queueing did, and what each server lacks of the workflow as it arrives."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.controller.backpressure import Limits, refusal
from core.controller.line_now import NewJobs, typical_run_seconds
from core.controller.placing_said import host_text
from core.controller.status import Connection
from core.controller.waiting_line import estimate_seconds
from core.durations import duration_text
from core.errors import BatchTooLarge

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from core.controller.line_now import LineCache
    from core.controller.status import ControllerStatus
    from core.ledger import Ledger
    from core.presets.availability import Unlisted


def admission_notice(
    lines: LineCache, status: ControllerStatus, requester: str, count: int, priority: int = 0
) -> str:
    """Empty when the jobs (of ``requester``, ``priority``) would all be sent at once; else
    their places in line and the wait until the last is done."""
    if count <= 0:
        return ""
    line = lines.read(wanted=(), new=NewJobs(requester, count, priority), status=status)
    first, last = line.new[0], line.new[-1]
    if last.at_once:
        return ""
    servers, cap = line.servers, line.capacity
    who = f"your {servers} servers get" if servers > 1 else "ComfyUI gets"
    place = f"#{last.place}" if count == 1 else f"#{first.place}–#{last.place}"
    subject = "This job" if count == 1 else f"These {count} jobs"
    done = (
        f"the last would be done in about {duration_text(last.estimate_s)}"
        if last.estimate_s is not None
        else "the wait is estimated once a job has finished"
    )
    return f"{subject} would stand {place} in line ({who} {cap} at a time); {done}."


def refusal_notice(ledger: Ledger, status: ControllerStatus, requester: str, count: int) -> str:
    """Empty when Queue would take these jobs now; else why it would refuse them, and when
    there would be room (the limits of `batchline queue` and the API, said before Queue)."""
    if count <= 0:
        return ""
    try:
        refused = refusal(ledger, Limits.load(ledger), requester, count)
    except BatchTooLarge as exc:
        return f"Too many at once: {exc}."
    if refused is None:
        return ""
    servers = max(1, len(status.servers))
    seconds = estimate_seconds(refused.over, typical_run_seconds(ledger), servers)
    room = (
        f"there is room in about {duration_text(seconds)}"
        if seconds is not None
        else "there is room once some have finished"
    )
    return f"Not now: {refused.why}, so these {count} jobs would be refused; {room}."


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


# --- what the servers lack of the workflow, said as it arrives ---------------------------------


def missing_notice(
    unlisted: Sequence[Unlisted], classes: Mapping[str, list[str]], servers: Sequence[str]
) -> str:
    """Per server (of ``servers``, those whose catalogue is known) what it lacks of the
    workflow as the fields stand ("On 127.0.0.1:8188: model “x.safetensors” (Load Checkpoint
    · ckpt_name) is missing; …"), which other servers have it, and which have everything; ""
    when none lacks anything."""
    return "\n".join(line for _server, line in missing_lines(unlisted, classes, servers))


def missing_lines(
    unlisted: Sequence[Unlisted], classes: Mapping[str, list[str]], servers: Sequence[str]
) -> list[tuple[str | None, str]]:
    """``missing_notice``'s lines, each with the server it is about (None: the last line,
    those that have everything)."""
    lacking = set(classes) | {a for u in unlisted for a in u.lacking}
    if not lacking:
        return []
    lines: list[tuple[str | None, str]] = []
    for server in (s for s in servers if s in lacking):
        parts = [f"node “{name}” is missing" for name in classes.get(server, ())]
        parts += [missing_text(u, server) for u in unlisted if server in u.lacking]
        lines.append((server, f"On {host_text(server)}: {'; '.join(parts)}."))
    complete = [host_text(s) for s in servers if s not in lacking]
    if complete:
        verb = "has" if len(complete) == 1 else "have"
        lines.append((None, f"{_and(complete)} {verb} everything."))
    return lines


def missing_text(unlisted: Unlisted, server: str) -> str:
    """One value ``server`` lacks: "model “x” (Load Checkpoint · ckpt_name) is missing",
    naming the other servers that have it."""
    text = f"{unlisted.kind} “{unlisted.value}” ({unlisted.parameter.label}) is missing"
    having = [host_text(s) for s in unlisted.having if s != server]
    if having:
        text += f" ({_and(having)} {'has' if len(having) == 1 else 'have'} it)"
    return text


def unlisted_tooltip(unlisted: Unlisted) -> str:
    """Why a field is marked: which servers lack its value, which have it."""
    lacking = _and([host_text(s) for s in unlisted.lacking])
    text = f"{unlisted.parameter.label}: {lacking} does not have “{unlisted.value}”"
    if unlisted.having:
        verb = "has" if len(unlisted.having) == 1 else "have"
        text += f"; {_and([host_text(s) for s in unlisted.having])} {verb} it"
    return text + ". Choose another at the top of the composer."


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"
