"""`batchline cancel|retry|pause|resume`: commands, carried out here or by the running controller.

When no controller holds the lease, cancel and retry change the ledger directly, in one
transaction however many jobs (the next controller run finishes the job: it deletes or interrupts
what was sent). When a controller runs, they are posted as requests that it carries out within a
second; ``--wait`` waits for that. The lease is never held while the command works.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from cli.common import names_from_user, open_ledger, warn
from core.errors import InputError, LeaseTakenError, UnknownRecord
from core.job_state import CANCELLABLE_STATES, JobState
from core.ledger import Refused
from core.settings import PAUSED

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    from core.ledger import Ledger

WAIT_POLL_S = 0.1
EXIT_REFUSED = 1


def register(subparsers: Any) -> None:
    cancel = subparsers.add_parser("cancel", help="cancel jobs (or a whole batch)")
    cancel.add_argument("jobs", nargs="*", metavar="JOB")
    cancel.add_argument("--batch", metavar="ID", help="cancel every unfinished job of the batch")
    _wait_options(cancel)
    cancel.set_defaults(func=cancel_jobs)

    retry = subparsers.add_parser("retry", help="retry failed or cancelled jobs")
    retry.add_argument("jobs", nargs="+", metavar="JOB")
    _wait_options(retry)
    retry.set_defaults(func=retry_jobs)

    pause = subparsers.add_parser("pause", help="stop sending new jobs to ComfyUI")
    pause.set_defaults(func=lambda args: set_paused(args, True))
    resume = subparsers.add_parser("resume", help="send jobs to ComfyUI again")
    resume.set_defaults(func=lambda args: set_paused(args, False))


def _wait_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--wait", action="store_true", help="wait until the running controller has carried it out"
    )
    parser.add_argument(
        "--timeout", type=float, default=30.0, metavar="S", help="longest wait (default 30 s)"
    )


# --- cancel and retry ---------------------------------------------------------------------------


def cancel_jobs(args: argparse.Namespace) -> int:
    if bool(args.jobs) == bool(args.batch):
        raise InputError("name the jobs to cancel, or --batch ID (not both)")
    with open_ledger(args) as ledger:
        _check_names(ledger, args.jobs, args.batch)
        if args.batch:
            return _command(ledger, args, "cancel_batch", [args.batch], _cancel_batch_here)
        return _command(ledger, args, "cancel", args.jobs, _cancel_here)


def retry_jobs(args: argparse.Namespace) -> int:
    with open_ledger(args) as ledger:
        _check_names(ledger, args.jobs, None)
        return _command(ledger, args, "retry", args.jobs, _retry_here)


def _check_names(ledger: Ledger, jobs: list[str], batch: str | None) -> None:
    with names_from_user():
        known = set(ledger.job_ids(among=jobs))
        for job_id in jobs:
            if job_id not in known:
                raise UnknownRecord(f"no job {job_id!r}")
        if batch:
            ledger.batch(batch)


def _command(
    ledger: Ledger,
    args: argparse.Namespace,
    kind: str,
    targets: list[str],
    here: Callable[[Ledger, list[str]], dict[str, str]],
) -> int:
    """Carry the command out on the ledger (one transaction), or post it for the controller.

    Whether a controller runs is asked without keeping its lease: a controller may start while
    the command works (the ledger's changes reach it through the change feed).
    """
    try:
        ledger.lease.check_free()
    except LeaseTakenError as exc:
        return _post(ledger, args, kind, targets, exc.pid)
    return _report(here(ledger, targets))


def _cancel_here(ledger: Ledger, job_ids: list[str]) -> dict[str, str]:
    return {job_id: str(outcome) for job_id, outcome in ledger.request_cancel_many(job_ids).items()}


def _retry_here(ledger: Ledger, job_ids: list[str]) -> dict[str, str]:
    return {
        job_id: str(outcome) if isinstance(outcome, Refused) else f"pending as attempt {outcome}"
        for job_id, outcome in ledger.retry_many(job_ids).items()
    }


def _cancel_batch_here(ledger: Ledger, batch_ids: list[str]) -> dict[str, str]:
    outcomes: dict[str, str] = {}
    for batch_id in batch_ids:
        active = ledger.job_ids(batch=batch_id, states=CANCELLABLE_STATES)
        states = list(ledger.request_cancel_many(active).values())
        outcomes[batch_id] = (
            f"{len(active)} jobs asked to cancel "
            f"({states.count(JobState.cancelled)} cancelled at once)"
        )
    return outcomes


def _report(outcomes: dict[str, str]) -> int:
    """One line per target; exit 1 when any was refused."""
    for target, outcome in outcomes.items():
        print(f"{target}: {outcome}")
    refused = any(outcome.startswith("refused") for outcome in outcomes.values())
    return EXIT_REFUSED if refused else 0


def _post(
    ledger: Ledger, args: argparse.Namespace, kind: str, targets: list[str], pid: int | None
) -> int:
    requests = dict(zip(targets, ledger.requests.post_many(kind, targets), strict=True))
    if not args.wait:
        who = f"pid {pid}" if pid else "pid unknown"
        for target, request_id in requests.items():
            print(f"{target}: {kind} request {request_id} sent to the controller ({who})")
        return 0
    outcomes = _wait_for(ledger, requests, args.timeout)
    if outcomes is None:
        warn(f"the controller did not carry out the {kind} within {args.timeout:g} s")
        return 1
    return _report(outcomes)


def _wait_for(ledger: Ledger, requests: dict[str, int], timeout: float) -> dict[str, str] | None:
    """Each target's outcome once every request is done, or None at the timeout."""
    deadline = time.monotonic() + timeout
    while True:
        records = {target: ledger.requests.get(rid) for target, rid in requests.items()}
        if all(r.done_at is not None for r in records.values()):
            return {target: r.outcome or "done" for target, r in records.items()}
        if time.monotonic() >= deadline:
            return None
        time.sleep(WAIT_POLL_S)


# --- pause and resume ---------------------------------------------------------------------------


def set_paused(args: argparse.Namespace, paused: bool) -> int:
    with open_ledger(args) as ledger:
        PAUSED.set(ledger, paused)
    print("paused: no new jobs are sent to ComfyUI" if paused else "resumed")
    return 0
