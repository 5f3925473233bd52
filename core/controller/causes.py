"""Retry by cause: which Reason an error or a failure is, and whether it is retried."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from core.errors import (
    ComfyRejected,
    ComfyServerError,
    ComfyTimeout,
    ExecutionFailure,
    TransientComfyError,
)
from core.job_state import Reason


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


def failure_detail(failure: ExecutionFailure) -> dict[str, Any]:
    """What the ledger stores about an execution failure (node, type, message, kind)."""
    detail = asdict(failure)
    return {k: v for k, v in detail.items() if v not in (None, {}, "")}


def rejection_detail(exc: ComfyRejected) -> dict[str, Any]:
    """What the ledger stores about a prompt ComfyUI refused: the error and each node error."""
    first = exc.node_errors[0] if exc.node_errors else None
    return {
        "kind": "validation",
        "message": str(exc),
        "error_type": exc.error.type,
        "node_id": first.node_id if first else None,
        "node_type": first.class_type if first else None,
        "input": first.input_name if first else None,
        "node_errors": [e.describe() for e in exc.node_errors],
    }
