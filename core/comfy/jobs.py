"""The newer jobs API (``/api/jobs``): typed jobs, and the result of a prompt lookup."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from core.comfy.failures import INTERRUPTED, failure_from_error, failure_from_messages
from core.comfy.responses import HistoryEntry, ImageRef, parse_outputs
from core.comfy.shapes import JsonObject, Shape
from core.errors import ExecutionFailure

JOB_PENDING = "pending"
JOB_RUNNING = "in_progress"
JOB_FINISHED = frozenset({"completed", "failed", "cancelled"})


@dataclass(frozen=True, slots=True)
class JobInfo:
    """One job of ``/api/jobs`` (times in ms since the epoch; images only from the detail route).

    ``status`` is the server's word: ``pending``, ``in_progress``, ``completed``, ``failed`` or
    ``cancelled``.
    """

    id: str
    status: str
    priority: int | float | None = None
    create_time: int | None = None
    execution_start_time: int | None = None
    execution_end_time: int | None = None
    outputs_count: int | None = None
    images: tuple[ImageRef, ...] = ()
    failure: ExecutionFailure | None = None
    status_str: str | None = None

    @property
    def finished(self) -> bool:
        return self.status in JOB_FINISHED

    def to_history_entry(self) -> HistoryEntry:
        """The finished job in the same shape ``/history/{id}`` gives."""
        succeeded = self.status == "completed" and self.failure is None
        return HistoryEntry(
            prompt_id=self.id,
            number=self.priority,
            status=self.status_str or ("success" if succeeded else "error"),
            completed=succeeded,
            images=self.images,
            failure=self.failure,
        )


class PromptState(enum.StrEnum):
    """Where a prompt is on the server, as one lookup saw it."""

    pending = "pending"
    running = "running"
    finished = "finished"
    unknown = "unknown"  # in neither queue nor history: just sent, deleted, or lost


@dataclass(frozen=True, slots=True)
class PromptLookup:
    """Result of ``ComfyClient.lookup``: the state, and the history entry when finished."""

    state: PromptState
    entry: HistoryEntry | None = None


def parse_job_detail(body: Any, route: str) -> JobInfo:
    shape = Shape(route)
    return parse_job(shape.obj(body, "body"), shape)


def parse_job(raw: JsonObject, shape: Shape) -> JobInfo:
    execution_status = raw.get("execution_status")
    status = shape.text(shape.key(raw, "status", "job"), "job.status")
    return JobInfo(
        id=shape.text(shape.key(raw, "id", "job"), "job.id"),
        status=status,
        priority=shape.opt_number(raw.get("priority"), "job.priority"),
        create_time=shape.opt_integer(raw.get("create_time"), "job.create_time"),
        execution_start_time=shape.opt_integer(raw.get("execution_start_time"), "job.start"),
        execution_end_time=shape.opt_integer(raw.get("execution_end_time"), "job.end"),
        outputs_count=shape.opt_integer(raw.get("outputs_count"), "job.outputs_count"),
        images=parse_outputs(raw.get("outputs") or {}, shape),
        failure=_job_failure(raw, status, shape),
        status_str=_status_str(execution_status, shape),
    )


def _status_str(execution_status: object, shape: Shape) -> str | None:
    if execution_status is None:
        return None
    status = shape.obj(execution_status, "job.execution_status")
    return shape.opt_text(status.get("status_str"), "job.execution_status.status_str")


def _job_failure(raw: JsonObject, status: str, shape: Shape) -> ExecutionFailure | None:
    """Prefer the history messages; else the job's ``execution_error``; else its status."""
    execution_status = raw.get("execution_status")
    if isinstance(execution_status, dict) and "messages" in execution_status:
        failure = failure_from_messages(execution_status["messages"], shape)
        if failure is not None:
            return failure
    error = raw.get("execution_error")
    if error is not None:
        return failure_from_error(shape.obj(error, "job.execution_error"), shape)
    if status == "cancelled":
        return ExecutionFailure(kind=INTERRUPTED, message="cancelled")
    if status == "failed":
        return ExecutionFailure(kind="other", message="failed")
    return None
