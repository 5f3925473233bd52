"""What went wrong with one attempt, as the ledger keeps it: an ``AttemptError`` of an
``ErrorKind``, written by the controller, read back from any stored shape, and said one way.

The short rendering (``short``: a table cell, a tooltip, a line of `batchline run`) and the
long one (``long``: the job details pane, `batchline show`) are the only ones; the CLI, the API
(``error_text``) and the window all call them.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from core.job_state import AttemptResult, Reason
from core.reason_texts import REASON_TEXTS

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from core.ledger.records import AttemptRecord, JobRecord

SHORT_LIMIT = 200  # characters of the short rendering


class ErrorKind(StrEnum):
    """Which of the controller's writers recorded an error; stored by value."""

    validation = "validation"  # ComfyUI refused the prompt (HTTP 400): an input is wrong
    execution = "execution"  # a node raised while the prompt ran, or the run ended in error
    oom = "oom"  # a node ran out of memory
    connection = "connection"  # the server could not be reached: nothing was sent
    unknown_outcome = "unknown_outcome"  # the POST got no usable answer; it may have arrived
    unsupported_server = "unsupported_server"  # the server ignored Batchline's prompt id
    superseded = "superseded"  # withdrawn: an older attempt, answered late, succeeded first
    outputs_gone = "outputs_gone"  # it succeeded, but the server no longer had its pictures
    output_refused = "output_refused"  # it succeeded, but its pictures had nowhere safe to go


@dataclass(frozen=True, slots=True)
class AttemptError:
    """One attempt's error: its kind, ComfyUI's message and, when known, where it happened.

    ``node_errors`` are ComfyUI's validation errors, each already naming its node and input;
    ``error_type`` the refused prompt's own error type; ``traceback`` the failing node's.
    """

    kind: ErrorKind
    message: str = ""
    node_id: str | None = None
    node_type: str | None = None
    input_name: str | None = None
    exception_type: str | None = None
    error_type: str | None = None
    node_errors: tuple[str, ...] = ()
    traceback: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The stored shape: the kind, then only the fields that say something."""
        stored: dict[str, Any] = {"kind": self.kind.value}
        for field in fields(self)[1:]:
            value = getattr(self, field.name)
            if value:
                stored[field.name] = list(value) if field.name == "node_errors" else value
        return stored

    @classmethod
    def from_json(cls, stored: object, reason: str | None = None) -> AttemptError:
        """An error as any version of Batchline stored it; ``reason`` (the attempt's) names the
        kind of the old shapes that said only a message."""
        data: dict[str, Any] = stored if isinstance(stored, dict) else {"message": stored}
        extra = data.get("extra")
        return cls(
            kind=_stored_kind(data, reason),
            message=_text(data.get("message")) or _text(data.get("exception_message")) or "",
            node_id=_text(data.get("node_id")),
            node_type=_text(data.get("node_type")),
            input_name=_text(data.get("input_name")) or _text(data.get("input")),
            exception_type=_text(data.get("exception_type")),
            error_type=_text(data.get("error_type")),
            node_errors=_texts(data.get("node_errors")),
            traceback=_text(data.get("traceback"))
            or (_text(extra.get("traceback")) if isinstance(extra, dict) else None),
        )

    def headline(self) -> str:
        """What went wrong and where, without ComfyUI's message: "out of memory in KSampler
        (node 3)"."""
        return _HEADS[self.kind] + self._where()

    def short(self) -> str:
        """One line of at most ``SHORT_LIMIT`` characters: the headline and the message's first
        line (an out-of-memory message says only what the headline says)."""
        lines = self.message.strip().splitlines() if self.kind != ErrorKind.oom else []
        text = f"{self.headline()}: {lines[0]}" if lines else self.headline()
        text = " ".join(text.split())  # a node's type or id spread over lines, too
        return text if len(text) <= SHORT_LIMIT else text[: SHORT_LIMIT - 3].rstrip() + "..."

    def long(self, result: AttemptResult | None = None) -> str:
        """Every line there is to say, for a details pane; ``result``, the attempt's, tells
        what became of a submission that got no answer."""
        lines = [self.headline()]
        if self.exception_type:
            lines.append(f"Exception: {self.exception_type}")
        if self.message:
            lines.append(f"Message: {self.message.strip()}")
        if self.error_type:
            lines.append(f"ComfyUI's error: {self.error_type}")
        if len(self.node_errors) > 1:
            lines += [f"Node error: {text}" for text in self.node_errors]
        if self.kind == ErrorKind.unknown_outcome and result is not None:
            lines.append(_UNANSWERED_END[result])
        return "\n".join(lines)

    def _where(self) -> str:
        if self.node_type and self.node_id:
            where = f" in {self.node_type} (node {self.node_id})"
        elif self.node_type or self.node_id:
            where = f" in {self.node_type}" if self.node_type else f" in node {self.node_id}"
        else:
            where = ""
        return where + (f", input {self.input_name!r}" if self.input_name else "")


def current_errors(
    jobs: Iterable[JobRecord], attempts: Mapping[str, Sequence[AttemptRecord]]
) -> dict[str, AttemptError]:
    """The error of each job's current attempt (the one its reason is about), for the jobs
    whose attempt has one; ``attempts`` as ``Ledger.attempts_of`` gives them."""
    errors: dict[str, AttemptError] = {}
    for job in jobs:
        current = [a.error for a in attempts.get(job.id, ()) if a.n == job.attempt and a.error]
        if current:
            errors[job.id] = current[0]
    return errors


# What each kind is called; a kind that is one reason has that reason's words.
_HEADS = {
    ErrorKind.validation: REASON_TEXTS[Reason.validation_error],
    ErrorKind.execution: "error",
    ErrorKind.oom: REASON_TEXTS[Reason.oom],
    ErrorKind.connection: "not sent",
    ErrorKind.unknown_outcome: "no answer to its submission",
    ErrorKind.unsupported_server: "server not supported",
    ErrorKind.superseded: "withdrawn",
    ErrorKind.outputs_gone: REASON_TEXTS[Reason.outputs_gone],
    ErrorKind.output_refused: REASON_TEXTS[Reason.output_refused],
}

# What became of an attempt whose submission got no answer, by its result.
_UNANSWERED_END = {
    AttemptResult.submitting: "It is being looked up on the server.",
    AttemptResult.queued: "It was found in the queue.",
    AttemptResult.running: "It was found running.",
    AttemptResult.succeeded: "It reached the server all the same and succeeded.",
    AttemptResult.failed: "It reached the server all the same and failed.",
    AttemptResult.cancelled: "It reached the server all the same and was cancelled.",
    AttemptResult.lost: "The server never showed it within the settle window: tried again.",
}

# The kind of an old error that said only its message, by the attempt's reason.
_KIND_OF_REASON = {
    Reason.connection_error: ErrorKind.connection,
    Reason.superseded: ErrorKind.superseded,
    Reason.oom: ErrorKind.oom,
    Reason.validation_error: ErrorKind.validation,
    Reason.timeout: ErrorKind.unknown_outcome,
    Reason.server_error: ErrorKind.unknown_outcome,
}


def _stored_kind(data: dict[str, Any], reason: str | None) -> ErrorKind:
    """The kind of a stored error: its own, an old execution failure's ``other``, an old
    unknown outcome's marker, else the attempt's reason's."""
    kind = data.get("kind")
    if isinstance(kind, str) and kind in _KINDS:
        return ErrorKind(kind)
    if kind == "other":
        return ErrorKind.execution
    if data.get("outcome") == "unknown":
        return ErrorKind.unknown_outcome
    if reason in _REASONS:
        return _KIND_OF_REASON.get(Reason(reason), ErrorKind.execution)
    return ErrorKind.execution


_KINDS = frozenset(kind.value for kind in ErrorKind)
_REASONS = frozenset(reason.value for reason in Reason)


def _text(value: object) -> str | None:
    """A stored text field (a node id may have been stored as a number), else None (an empty
    one too: ``to_json`` leaves empty fields out)."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return None
    return str(value) or None


def _texts(value: object) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(text for item in value if (text := _text(item)))
