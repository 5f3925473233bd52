"""Immutable snapshots of ledger rows, handed to the controller, the CLI and the GUI, and the
job and attempt rows the transition verbs read, as named tuples."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from core.job_state import AttemptResult, JobState
from core.ledger.attempt_error import AttemptError

if TYPE_CHECKING:
    from core.errors import LedgerError
    from core.ledger import schema
    from core.ledger.owners import Actor

JsonValue = Any


class JobRow(NamedTuple):
    """A job's row as the verbs read it (every column, under its column name)."""

    id: str
    batch_id: str
    requester: str
    params_json: str
    priority: int
    state: str
    reason: str | None
    warning: str | None
    attempt: int
    auto_attempts: int
    created_at: float
    updated_at: float
    seq: int
    started_at: float | None
    finished_at: float | None


class PendingJob(NamedTuple):
    """A pending job as placement reads it from its requester's line (values as stored)."""

    id: str
    batch: str
    params_json: str
    priority: int


class AttemptRow(NamedTuple):
    """An attempt's row as the verbs read it (every column, under its column name)."""

    id: int
    job_id: str
    n: int
    prompt_id: str
    server: str
    number: float | None
    result: str
    reason: str | None
    error_json: str | None
    workflow_hash: str
    stalled: int  # 0 or 1
    created_at: float
    queued_at: float | None = None
    started_at: float | None = None
    finished_at: float | None = None
    outputs_json: str = "[]"
    refs_json: str | None = None
    placed_because: str | None = None


@dataclass(frozen=True, slots=True)
class JobRecord:
    id: str
    batch: str
    requester: str
    params: dict[str, JsonValue]
    priority: int
    state: JobState
    reason: str | None
    warning: str | None
    attempt: int
    auto_attempts: int
    created_at: float
    updated_at: float
    seq: int
    started_at: float | None = None
    finished_at: float | None = None

    @classmethod
    def from_row(cls, row: schema.Job | JobRow) -> JobRecord:
        return cls(
            id=row.id,
            batch=row.batch_id,
            requester=row.requester,
            params=json.loads(row.params_json),
            priority=row.priority,
            state=JobState(row.state),
            reason=row.reason,
            warning=row.warning,
            attempt=row.attempt,
            auto_attempts=row.auto_attempts,
            created_at=row.created_at,
            updated_at=row.updated_at,
            seq=row.seq,
            started_at=row.started_at,
            finished_at=row.finished_at,
        )


@dataclass(frozen=True, slots=True)
class AttemptRecord:
    job_id: str
    n: int
    prompt_id: str
    server: str
    number: float | None
    result: AttemptResult
    reason: str | None
    error: AttemptError | None
    workflow_hash: str
    stalled: bool
    created_at: float
    queued_at: float | None
    started_at: float | None
    finished_at: float | None
    outputs: list[str]
    # Where its success left the pictures on the server: ComfyUI's image references (filename,
    # subfolder, type, node_id), recorded before they were fetched; None before a success.
    refs: list[dict[str, JsonValue]] | None = None
    refs_note: str = ""  # what the success said of them (pictures left on the server)
    placed_because: str = ""  # why it went to its server ("gpu-1: its loaded model")

    @property
    def fetching(self) -> bool:
        """It succeeded on the server and its pictures are still to be fetched (its job is
        not finished yet)."""
        return self.result == AttemptResult.succeeded and self.refs is not None

    @classmethod
    def from_row(cls, row: schema.Attempt | AttemptRow) -> AttemptRecord:
        return cls(
            job_id=row.job_id,
            n=row.n,
            prompt_id=row.prompt_id,
            server=row.server,
            number=row.number,
            result=AttemptResult(row.result),
            reason=row.reason,
            error=AttemptError.from_json(json.loads(row.error_json), row.reason)
            if row.error_json
            else None,
            workflow_hash=row.workflow_hash,
            stalled=bool(row.stalled),
            created_at=row.created_at,
            queued_at=row.queued_at,
            started_at=row.started_at,
            finished_at=row.finished_at,
            outputs=json.loads(row.outputs_json),
            **_refs(row.refs_json),
            placed_because=row.placed_because or "",
        )

    @property
    def is_final(self) -> bool:
        return self.result.is_final


@dataclass(frozen=True, slots=True)
class TransitionRecord:
    job_id: str
    attempt: int
    at: float
    from_state: JobState
    to_state: JobState
    cause: str

    @classmethod
    def from_row(cls, row: schema.Transition) -> TransitionRecord:
        return cls(
            job_id=row.job_id,
            attempt=row.attempt,
            at=row.at,
            from_state=JobState(row.from_state),
            to_state=JobState(row.to_state),
            cause=row.cause,
        )


@dataclass(frozen=True, slots=True)
class BatchRecord:
    id: str
    preset: str
    workflow_hash: str
    requester: str
    priority: int
    spec: dict[str, JsonValue]
    created_at: float
    name: str | None = None


@dataclass(frozen=True, slots=True)
class PresetRecord:
    name: str
    workflow_hash: str
    api_workflow: dict[str, JsonValue]
    editor_workflow: dict[str, JsonValue] | None
    source: str
    info: dict[str, JsonValue]
    created_at: float
    updated_at: float
    stored_by: Actor  # its owner
    changed_by: Actor


@dataclass(frozen=True, slots=True)
class Refused:
    """A command not carried out for one job of many; ``error`` says why (finished, unknown)."""

    error: LedgerError

    def __str__(self) -> str:
        return f"refused: {self.error}"


def _refs(refs_json: str | None) -> dict[str, Any]:
    if refs_json is None:
        return {}
    stored = json.loads(refs_json)
    return {"refs": list(stored.get("images", [])), "refs_note": str(stored.get("note", ""))}


@dataclass(frozen=True, slots=True)
class RequesterCap:
    """The per-requester cap a submission obeys on its server: at most ``limit`` jobs of one
    requester in flight there (being sent, queued, running), not counting the prompts in
    ``gone`` (left the server's queue, their outcome not yet recorded: they hold no room)."""

    limit: int
    gone: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class NewJob:
    """What a batch needs to know about each job it creates (from batch composition)."""

    params: dict[str, JsonValue]
    requester: str | None = None
    priority: int | None = None
