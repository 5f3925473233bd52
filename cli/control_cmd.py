"""`batchline cancel|retry|pause|resume`: commands, carried out on the ledger.

Each is the command object's (``LedgerCommands``, the API's and the window's too). Cancel and
retry change the ledger directly, in one transaction however many jobs, whether or not a
controller runs; pause and resume change the pause setting. A running controller sees the change
in the ledger's change feed and acts on it within a quarter second (deletes or interrupts what was
sent of a cancelled job, sends a retried one); without one, the next controller run does.
``cancel --wait`` waits until the named jobs have left ``cancelling``.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from cli.arg_types import SECONDS
from cli.common import names_from_user, open_ledger, warn
from core.controller.commands import LedgerCommands
from core.errors import InputError, UnknownRecord
from core.job_state import JobState
from core.ledger import Refused

if TYPE_CHECKING:
    import argparse

    from core.ledger import Ledger

WAIT_POLL_S = 0.1
EXIT_REFUSED = 1


def register(subparsers: Any) -> None:
    cancel = subparsers.add_parser("cancel", help="cancel jobs (or a whole batch)")
    cancel.add_argument("jobs", nargs="*", metavar="JOB")
    cancel.add_argument("--batch", metavar="ID", help="cancel every unfinished job of the batch")
    cancel.add_argument(
        "--wait",
        action="store_true",
        help="wait until each job has left 'cancelling' (the controller deleted or interrupted "
        "what was sent)",
    )
    cancel.add_argument(
        "--timeout", type=SECONDS, default=30.0, metavar="S", help="longest wait (default 30 s)"
    )
    cancel.set_defaults(func=cancel_jobs)

    retry = subparsers.add_parser(
        "retry",
        help="retry failed or cancelled jobs (they are pending at once: nothing to wait for)",
    )
    retry.add_argument("jobs", nargs="*", metavar="JOB")
    retry.add_argument("--batch", metavar="ID", help="retry every failed job of the batch")
    retry.set_defaults(func=retry_jobs)

    pause = subparsers.add_parser("pause", help="stop sending new jobs to ComfyUI")
    pause.set_defaults(func=lambda args: set_paused(args, True))
    resume = subparsers.add_parser("resume", help="send jobs to ComfyUI again")
    resume.set_defaults(func=lambda args: set_paused(args, False))


# --- cancel and retry ---------------------------------------------------------------------------


def cancel_jobs(args: argparse.Namespace) -> int:
    if bool(args.jobs) == bool(args.batch):
        raise InputError("name the jobs to cancel, or --batch ID (not both)")
    with open_ledger(args) as ledger:
        _check_names(ledger, args.jobs, args.batch)
        commands = LedgerCommands(ledger)
        outcomes = commands.cancel_batch(args.batch) if args.batch else commands.cancel(args.jobs)
        if args.batch:
            code = _report({args.batch: _batch_outcome(list(outcomes.values()))})
        else:
            code = _report({job_id: str(outcome) for job_id, outcome in outcomes.items()})
        if not args.wait:
            return code
        cancelling = [
            job_id for job_id, outcome in outcomes.items() if outcome is JobState.cancelling
        ]
        return _wait_cancelled(ledger, cancelling, args.timeout) or code


def retry_jobs(args: argparse.Namespace) -> int:
    if bool(args.jobs) == bool(args.batch):
        raise InputError("name the jobs to retry, or --batch ID (not both)")
    with open_ledger(args) as ledger:
        _check_names(ledger, args.jobs, args.batch)
        commands = LedgerCommands(ledger)
        if args.batch:
            retried = commands.retry_failed(args.batch).values()
            count = sum(not isinstance(outcome, Refused) for outcome in retried)
            return _report({args.batch: f"{count} failed jobs pending again"})
        return _report(
            {
                job_id: str(outcome)
                if isinstance(outcome, Refused)
                else f"pending as attempt {outcome}"
                for job_id, outcome in commands.retry(args.jobs).items()
            }
        )


def _check_names(ledger: Ledger, jobs: list[str], batch: str | None) -> None:
    with names_from_user():
        known = set(ledger.job_ids(among=jobs))
        for job_id in jobs:
            if job_id not in known:
                raise UnknownRecord(f"no job {job_id!r}")
        if batch:
            ledger.batch(batch)


def _batch_outcome(states: list[JobState | Refused]) -> str:
    return (
        f"{len(states)} jobs asked to cancel ({states.count(JobState.cancelled)} cancelled at once)"
    )


def _report(outcomes: dict[str, str]) -> int:
    """One line per target; exit 1 when any was refused."""
    for target, outcome in outcomes.items():
        print(f"{target}: {outcome}")
    refused = any(outcome.startswith("refused") for outcome in outcomes.values())
    return EXIT_REFUSED if refused else 0


def _wait_cancelled(ledger: Ledger, job_ids: list[str], timeout: float) -> int:
    """Wait until no job of ``job_ids`` is ``cancelling``; 1 at the timeout, having said the
    state of each job still cancelling."""
    deadline = time.monotonic() + timeout
    while True:
        left = ledger.job_ids(among=job_ids, states=(JobState.cancelling,)) if job_ids else []
        if not left:
            return 0
        if time.monotonic() >= deadline:
            for job_id in left:
                warn(f"{job_id}: still cancelling after {timeout:g} s (is a controller running?)")
            return 1
        time.sleep(WAIT_POLL_S)


# --- pause and resume ---------------------------------------------------------------------------


def set_paused(args: argparse.Namespace, paused: bool) -> int:
    with open_ledger(args) as ledger:
        commands = LedgerCommands(ledger)
        if paused:
            commands.pause()
        else:
            commands.resume()
    print("paused: no new jobs are sent to ComfyUI" if paused else "resumed")
    return 0
