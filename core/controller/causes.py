"""Retry by cause: which Reason an error or a failure is, and whether it is retried."""

from __future__ import annotations

from core.errors import (
    ComfyRejected,
    ComfyServerError,
    ComfyTimeout,
    ExecutionFailure,
    TransientComfyError,
)
from core.job_state import Reason
from core.ledger.attempt_error import AttemptError, ErrorKind


def reason_for_error(exc: TransientComfyError) -> Reason:
    """The retryable cause of a transport failure: a timeout, an HTTP 5xx, else the connection."""
    if isinstance(exc, ComfyTimeout):
        return Reason.timeout
    if isinstance(exc, ComfyServerError):
        return Reason.server_error
    return Reason.connection_error


def reason_for_failure(failure: ExecutionFailure) -> Reason:
    """An execution failure's cause; interruptions are handled by the caller."""
    return Reason.oom if failure.kind == "oom" else Reason.execution_error


def failure_error(failure: ExecutionFailure) -> AttemptError:
    """What the ledger keeps of an execution failure: its kind, node, exception and message."""
    return AttemptError(
        kind=ErrorKind.oom if failure.kind == "oom" else ErrorKind.execution,
        message=failure.message,
        node_id=failure.node_id,
        node_type=failure.node_type,
        exception_type=failure.exception_type,
        traceback=failure.extra.get("traceback"),
    )


def rejection_error(exc: ComfyRejected) -> AttemptError:
    """What the ledger keeps of a prompt ComfyUI refused: the first node error's node, input
    and complaint (else the prompt's own), and every node error as ComfyUI said it."""
    first = exc.node_errors[0] if exc.node_errors else None
    return AttemptError(
        kind=ErrorKind.validation,
        message=(
            _said(first.message, first.details, first.input_name)
            if first
            else _said(exc.error.message, exc.error.details)
        ),
        node_id=first.node_id if first else None,
        node_type=first.class_type if first else None,
        input_name=first.input_name if first else None,
        error_type=exc.error.type,
        node_errors=tuple(e.describe() for e in exc.node_errors),
    )


def unanswered_error(exc: Exception) -> AttemptError:
    """Why a POST's outcome is unknown, kept on its attempt while its prompt_id is looked up."""
    return AttemptError(ErrorKind.unknown_outcome, str(exc))


def _said(message: str, details: str, input_name: str | None = None) -> str:
    """ComfyUI's message with its details, unless they only repeat the input's name."""
    return f"{message}: {details}" if details and details != input_name else message
