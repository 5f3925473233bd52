"""Batchline's one exception tree.

Policies classify failures by class, never by message text::

    BatchlineError
    ├── LedgerError                  the job ledger refused or could not do something
    │   ├── LedgerFormatError        the file is not a Batchline ledger, or is from a newer schema
    │   ├── LedgerOpenError          SQLite could not open, create or migrate the ledger file
    │   ├── LedgerWriteError         the ledger file cannot be written (disk full, read-only)
    │   ├── LedgerBusyError          another process kept the ledger's write lock too long
    │   ├── LeaseTakenError          another process holds the controller lease
    │   ├── IllegalTransition        a state change the transition table forbids
    │   └── UnknownRecord            no job / batch / preset with that id or name
    ├── OutputFolderBlocked          the output folder cannot be written: downloads wait
    │   └── OutputFolderFull         it has no room
    ├── BatchFolderRefused           a batch's folder is a link: that batch's jobs fail
    ├── QueueBusy                    new jobs refused: their requester's or the backlog's limit
    ├── InputError                   bad input from the user (file, option, value): exit code 2
    │   ├── SettingError             a stored setting not JSON, of the wrong type or range
    │   ├── PresetError              a preset file that cannot be loaded or converted
    │   ├── CompositionError         a batch spec that cannot be composed
    │   ├── NotYours                 a change to another owner's preset (the API's 403)
    │   └── BatchTooLarge            a batch larger than a limit itself (jobs a batch may
    │                                have, a backpressure limit)
    └── ComfyError                   talking to a ComfyUI server failed
        ├── TransientComfyError      the answer is unknown; safe to retry after checking
        │   ├── ComfyConnectionError the connection broke: the request may have arrived
        │   │   └── ComfyUnreachable could not connect: nothing was sent
        │   ├── ComfyTimeout         no answer in time
        │   └── ComfyServerError     HTTP 5xx
        ├── ComfyRejected            HTTP 400 from /prompt, with parsed node errors
        │   └── ComfyUploadRefused   /upload/image refused a picture (400/403/413/500)
        ├── ComfyAuthError           HTTP 401/403: token missing or wrong
        ├── ComfyNotFound            HTTP 404 (an output file, a job)
        └── ComfyProtocolError       a body that is not what the route promises
            └── ComfyAnswerTooLarge  an answer exceeds its route's size limit (not read on)
                └── ComfyOutputTooLarge  a downloaded output exceeds the size limit
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path


class BatchlineError(Exception):
    """Base of every error Batchline raises on purpose."""


# --- ledger -----------------------------------------------------------------------------------


class LedgerError(BatchlineError):
    """The job ledger refused or could not do something."""


class LedgerFormatError(LedgerError):
    """The database file is not a Batchline ledger, or was written by a newer Batchline."""


class LedgerOpenError(LedgerError):
    """SQLite could not open, create or migrate the ledger file (busy, read-only, damaged)."""


class LedgerWriteError(LedgerError):
    """The ledger file cannot be written (disk full, read-only, I/O error): nothing may be sent
    to ComfyUI that the ledger could not record, so the controller stops."""


class LedgerMissingError(LedgerOpenError):
    """No ledger file where one was expected: a new empty one is made on a first start only
    (an empty data folder, or ``batchline init``), never in place of one deleted or moved."""


class LedgerFileChanged(LedgerWriteError):
    """The file at the ledger's path is no longer the one this process opened (removed, or
    replaced: a backup restored with ``mv``, a file sync): nothing more is written, to either."""


class LedgerBusyError(LedgerError):
    """Another process kept the ledger's write lock beyond the busy timeout: trying again
    later may succeed."""


class LeaseTakenError(LedgerError):
    """Another process already acts as the controller for this ledger."""

    def __init__(self, pid: int | None) -> None:
        self.pid = pid
        who = f"pid {pid}" if pid else "pid unknown"
        super().__init__(f"another Batchline controller is running, {who}")


class IllegalTransition(LedgerError):
    """A state change that the transition table does not allow."""


class CapReached(IllegalTransition):
    """A submission refused because its requester has as many jobs in flight on the server as
    the per-requester cap allows (counted in the submission's own transaction)."""


class DispatchPaused(IllegalTransition):
    """A submission refused because dispatch is paused (read in the submission's own
    transaction: a pause written before it is always obeyed)."""


class UnknownRecord(LedgerError):
    """No record with the given id or name."""


# --- the output folder ------------------------------------------------------------------------


class OutputFolderBlocked(BatchlineError):
    """The output folder cannot take pictures now (not a folder, no permission, read-only, or
    full: OutputFolderFull): finished pictures stay on the server, their jobs unfinished, until
    it can.

    Attributes:
        folder: the output folder.
    """

    def __init__(self, folder: Path, why: str, until: str = "it can take them") -> None:
        self.folder = folder
        super().__init__(
            f"the output folder {folder} {why}: pictures wait on the server until {until}"
        )


class OutputFolderFull(OutputFolderBlocked):
    """The output folder's disk (or the user's quota on it) is full."""

    def __init__(self, folder: Path) -> None:
        super().__init__(folder, "is full", "there is room")


class BatchFolderRefused(BatchlineError):
    """A batch's folder in the output folder is a link (or not a folder): nothing is written
    through it. That batch's finished jobs fail with this; the others go on.

    Attributes:
        folder: the batch's folder.
    """

    def __init__(self, folder: Path, what: str) -> None:
        self.folder = folder
        super().__init__(
            f"the batch folder {folder} is {what}: refused, nothing is written through it "
            "(its pictures stay on the server)"
        )


# --- backpressure -----------------------------------------------------------------------------


class QueueBusy(BatchlineError):
    """New jobs are refused whole: they would take their requester past its quota of unfinished
    jobs, or the whole backlog past its limit. Trying again later (``retry_after_s``) may succeed.

    Attributes:
        reason: ``"requester_quota"`` or ``"backlog"``.
        position: the place in line the last new job would have had (`core.controller.line_now`).
        estimated_wait_s: seconds until that job would be done, None before any job
            succeeded (the estimate of the same place everywhere else).
        room_in_s: seconds until there is room, None before any job succeeded.
        retry_after_s: whole seconds to wait before asking again (a guess when no estimate).
        why: the limit, in words ("alice has 20 unfinished jobs and may have 20").
    """

    def __init__(
        self,
        message: str,
        reason: str,
        position: int,
        estimated_wait_s: float | None,
        retry_after_s: int,
        why: str = "",
        room_in_s: float | None = None,
    ) -> None:
        self.reason, self.position, self.why = reason, position, why
        self.estimated_wait_s, self.retry_after_s = estimated_wait_s, retry_after_s
        self.room_in_s = room_in_s
        super().__init__(message)


# --- user input -------------------------------------------------------------------------------


class InputError(BatchlineError):
    """Bad input from the user; the message names the file, node or input that is wrong."""


class SettingError(InputError):
    """A stored setting that is not JSON, of the wrong type or out of range (a hand-edited
    ledger): refused in one line naming the setting and its value, never replaced by its
    default.

    Attributes:
        key: the setting's key.
    """

    def __init__(self, key: str, shown: str, why: str) -> None:
        self.key = key
        shown = shown if len(shown) <= 80 else shown[:77] + "..."
        super().__init__(f"the setting {key} = {shown} is refused: {why}")


class PresetError(InputError):
    """A preset file that cannot be loaded, parsed or converted."""


class CompositionError(InputError):
    """A batch spec that cannot be turned into jobs."""


class NotYours(InputError):
    """A change to a preset its writer may not make: another requester's (the API answers 403)."""


class BatchTooLarge(InputError):
    """A batch with more jobs than a batch may have, or than its requester (or the backlog)
    may ever hold unfinished: it could never be queued whole (the API answers 413)."""


# --- ComfyUI ----------------------------------------------------------------------------------


class ComfyError(BatchlineError):
    """Talking to a ComfyUI server failed.

    Attributes:
        route: the route that failed, such as ``POST /prompt``.
    """

    def __init__(self, message: str, route: str = "") -> None:
        self.route = route
        super().__init__(f"{route}: {message}" if route else message)


class TransientComfyError(ComfyError):
    """The outcome is unknown (the request may or may not have been carried out)."""


class ComfyConnectionError(TransientComfyError):
    """The connection broke before an answer: the request may or may not have arrived."""


class ComfyUnreachable(ComfyConnectionError):
    """The server could not be connected to: nothing was sent (the only proven non-delivery)."""


class ComfyTimeout(TransientComfyError):
    """The server did not answer in time."""


class ComfyServerError(TransientComfyError):
    """The server answered with HTTP 5xx."""

    def __init__(self, message: str, route: str = "", status: int = 500) -> None:
        self.status = status
        super().__init__(message, route)


class ComfyAuthError(ComfyError):
    """The server (or the proxy in front of it) refused our credentials."""


class ComfyNotFound(ComfyError):
    """The server answered 404 for something we asked for."""


class ComfyProtocolError(ComfyError):
    """The server's answer does not have the shape the route promises."""


class ComfyAnswerTooLarge(ComfyProtocolError):
    """An answer is larger than its route's size limit: it was not read any further.

    Attributes:
        limit: the limit in bytes.
    """

    what = "answer"

    def __init__(self, message: str, route: str = "", limit: int = 0) -> None:
        self.limit = limit
        super().__init__(message, route)


class ComfyOutputTooLarge(ComfyAnswerTooLarge):
    """A downloaded output is larger than the caller's size limit; nothing was kept."""

    what = "output"


@dataclass(frozen=True)
class NodeError:
    """One validation error of one node, as ComfyUI reports it in ``node_errors``."""

    node_id: str
    class_type: str
    type: str
    message: str
    details: str = ""
    input_name: str | None = None
    dependent_outputs: tuple[str, ...] = ()

    def describe(self) -> str:
        where = f"node {self.node_id} ({self.class_type})"
        if self.input_name:
            where += f", input {self.input_name!r}"
        detail = f": {self.details}" if self.details and self.details != self.input_name else ""
        return f"{where}: {self.message}{detail}"


@dataclass(frozen=True)
class PromptError:
    """The top-level ``error`` object of a rejected prompt."""

    type: str
    message: str
    details: str = ""


class ComfyRejected(ComfyError):
    """ComfyUI refused the prompt with HTTP 400 (validation failed)."""

    def __init__(
        self, error: PromptError, node_errors: tuple[NodeError, ...] = (), route: str = ""
    ) -> None:
        self.error = error
        self.node_errors = node_errors
        text = error.message + (f" ({error.details})" if error.details else "")
        if node_errors:
            text += "; " + "; ".join(e.describe() for e in node_errors)
        super().__init__(text, route)


class ComfyUploadRefused(ComfyRejected):
    """The server refused an uploaded picture (``POST /upload/image``): a bad name or subfolder
    (400), a folder it forbids (403), too large for its upload limit (413) or a request its
    handler failed on (500). Sending the same picture again gets the same answer.

    Attributes:
        status: the HTTP status.
        reason: one line saying why, in plain words.
    """

    def __init__(self, status: int, reason: str, route: str = "") -> None:
        self.status = status
        self.reason = reason
        super().__init__(PromptError("upload_refused", f"HTTP {status}: {reason}"), (), route)


@dataclass(frozen=True)
class ExecutionFailure:
    """Why a prompt failed while executing (from history or an ``execution_error`` event).

    ``kind`` is ``oom``, ``interrupted`` or ``other``.
    """

    kind: str
    node_id: str | None = None
    node_type: str | None = None
    exception_type: str | None = None
    message: str = ""
    extra: dict[str, str] = field(default_factory=dict)
