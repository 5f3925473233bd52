"""Helpers shared by the CLI commands: the ledger, the server, JSON and time formatting."""

from __future__ import annotations

import contextlib
import json
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from core.comfy import DEFAULT_TIMEOUT, BearerAuth, ComfyClient, server_address
from core.errors import InputError, UnknownRecord
from core.ledger import Ledger
from core.paths import data_dir
from core.settings import SERVER, Settings, server_list
from core.token_store import load_token

if TYPE_CHECKING:
    import argparse
    from collections.abc import Iterator

    import httpx

    from core.ledger import AttemptRecord, JobRecord, TransitionRecord


def open_ledger(args: argparse.Namespace) -> Ledger:
    """The ledger in ``--data-dir`` (else $BATCHLINE_HOME, else the user data folder)."""
    return Ledger(data_dir(args.data_dir))


@contextlib.contextmanager
def names_from_user() -> Iterator[None]:
    """Unknown jobs, batches and presets named on the command line are input errors (exit 2)."""
    try:
        yield
    except UnknownRecord as exc:
        raise InputError(str(exc)) from None


def server_urls(args: argparse.Namespace, ledger: Ledger) -> list[str]:
    """``--server``, else the stored setting, else ComfyUI's default address (one or more),
    each checked and normalised.

    Raises:
        InputError: ``--server`` names no server, or an address is not one.
    """
    if args.server is not None and not server_list(args.server):
        raise InputError(f"--server names no server: {args.server!r}")
    texts = server_list(args.server) if args.server else Settings(server=SERVER.get(ledger)).servers
    try:
        return [server_address(text) for text in texts]
    except ValueError as exc:
        raise InputError(str(exc)) from None


def server_url(args: argparse.Namespace, ledger: Ledger) -> str:
    """The first server: the one asked for its node catalogue."""
    return server_urls(args, ledger)[0]


def make_client(url: str, timeout: httpx.Timeout = DEFAULT_TIMEOUT) -> ComfyClient:
    """A client for ``url`` (one of ``server_urls``), with its bearer token from the keyring or
    $BATCHLINE_TOKEN."""
    token = load_token(url)
    return ComfyClient(url, auth=BearerAuth(token) if token else None, timeout=timeout)


def iso(timestamp: float | None) -> str | None:
    """A ledger time as ISO-8601 UTC (``2025-01-31T12:00:00.123Z``), or None."""
    if timestamp is None:
        return None
    text = datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="milliseconds")
    return text.replace("+00:00", "Z")


def short_time(timestamp: float | None) -> str:
    """A ledger time for people: local ``HH:MM:SS``, or a dash."""
    if timestamp is None:
        return "-"
    return datetime.fromtimestamp(timestamp).strftime("%H:%M:%S")


def print_json(value: Any) -> None:
    """A list one item per line (100,000 jobs print in seconds, and grep finds a job's line);
    anything else indented."""
    if isinstance(value, list):
        items = ",\n".join(json.dumps(item, ensure_ascii=False) for item in value)
        sys.stdout.write(f"[\n{items}\n]\n" if value else "[]\n")
    else:
        sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False) + "\n")


def warn(message: str) -> None:
    """One line on stderr, prefixed like the error messages."""
    print(f"batchline: {message}", file=sys.stderr)


def format_params(params: dict[str, Any]) -> str:
    return " ".join(f"{key}={value}" for key, value in sorted(params.items())) or "-"


# --- JSON of a job ------------------------------------------------------------------------------


def job_json(
    ledger: Ledger,
    job: JobRecord,
    preset: str | None = None,
    attempts: list[AttemptRecord] | None = None,
    transitions: list[TransitionRecord] | None = None,
) -> dict[str, Any]:
    """A job with its attempts, outputs and transitions; states, results and reasons by their
    lowercase names.

    ``preset``, ``attempts`` and ``transitions`` are read from the ledger unless given.
    """
    if attempts is None:
        attempts = ledger.attempts(job.id)
    if transitions is None:
        transitions = ledger.transitions(job.id)
    return {
        "id": job.id,
        "batch": job.batch,
        "preset": preset if preset is not None else ledger.batch(job.batch).preset,
        "state": job.state.value,
        "reason": job.reason,
        "warning": job.warning,
        "requester": job.requester,
        "priority": job.priority,
        "params": job.params,
        "attempt": job.attempt,
        "created_at": iso(job.created_at),
        "updated_at": iso(job.updated_at),
        "attempts": [attempt_json(a) for a in attempts],
        "outputs": [path for a in attempts for path in a.outputs],
        "transitions": [transition_json(t) for t in transitions],
    }


def attempt_json(attempt: AttemptRecord) -> dict[str, Any]:
    return {
        "n": attempt.n,
        "prompt_id": attempt.prompt_id,
        "server": attempt.server,
        "number": attempt.number,
        "result": attempt.result.value,
        "reason": attempt.reason,
        "error": attempt.error,
        "stalled": attempt.stalled,
        "workflow_hash": attempt.workflow_hash,
        "created_at": iso(attempt.created_at),
        "queued_at": iso(attempt.queued_at),
        "started_at": iso(attempt.started_at),
        "finished_at": iso(attempt.finished_at),
        "outputs": list(attempt.outputs),
    }


def transition_json(transition: TransitionRecord) -> dict[str, Any]:
    return {
        "at": iso(transition.at),
        "from": transition.from_state.value,
        "to": transition.to_state.value,
        "attempt": transition.attempt,
        "cause": transition.cause,
    }


def jobs_json(ledger: Ledger, jobs: list[JobRecord]) -> list[dict[str, Any]]:
    """Several jobs: presets, attempts and transitions read in bulk, not job by job."""
    presets = {batch.id: batch.preset for batch in ledger.batches()}
    ids = [job.id for job in jobs]
    attempts, transitions = ledger.attempts_of(ids), ledger.transitions_of(ids)
    return [
        job_json(
            ledger, job, presets[job.batch], attempts.get(job.id, []), transitions.get(job.id, [])
        )
        for job in jobs
    ]
