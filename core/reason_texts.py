"""The words for each Reason, one table for the CLI, the API's text fields and the window.

A reason is stored and sent by its code (``oom``); people read its text ("out of memory").
"""

from __future__ import annotations

from core.job_state import Reason

REASON_TEXTS: dict[Reason, str] = {
    Reason.oom: "out of memory",
    Reason.validation_error: "validation error",  # one name for it everywhere: ComfyUI's
    Reason.execution_error: "error in a node",
    Reason.server_lost: "server restarted",
    Reason.server_error: "server error",
    Reason.connection_error: "connection lost",
    Reason.cancelled: "cancelled here",
    Reason.interrupted_elsewhere: "interrupted elsewhere",
    Reason.removed_elsewhere: "removed elsewhere",
    Reason.timeout: "no answer in time",
    Reason.superseded: "an earlier try finished first",
    Reason.outputs_gone: "pictures gone from the server",
    Reason.output_refused: "batch folder refused",
    Reason.model_missing: "model missing on that server",
    Reason.picture_missing: "input picture missing on that server",
}


def reason_text(reason: str | None) -> str:
    """A stored reason code in words; "" for none, a code this version does not know spaced."""
    if not reason:
        return ""
    try:
        return REASON_TEXTS[Reason(reason)]
    except ValueError:
        return reason.replace("_", " ")


def cause_text(cause: str) -> str:
    """A transition's cause with a reason code that opens it in words: ``oom`` reads "out of
    memory", ``timeout: retried as attempt 2`` "no answer in time: retried as attempt 2"."""
    head, separator, rest = cause.partition(":")
    if separator:
        return f"{_code_text(head)}{separator}{rest}"
    head, separator, rest = cause.partition(" while ")
    return f"{_code_text(head)}{separator}{rest}"


def _code_text(text: str) -> str:
    try:
        return REASON_TEXTS[Reason(text)]
    except ValueError:
        return text
