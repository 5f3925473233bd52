"""`batchline again JOB`: queue one job with exactly another job's values and seed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cli.common import names_from_user, open_ledger, print_json, queue_commands

if TYPE_CHECKING:
    import argparse


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "again",
        help="queue a job again with its seed and values",
        description="Queue one job with exactly JOB's values and seed, in a new batch of the "
        "same preset (refused whole past the backlog's limits, as `queue` is). Prints its id.",
    )
    parser.add_argument("job", metavar="JOB", help="the job id")
    parser.add_argument("--json", action="store_true", help="print the new job as JSON")
    parser.set_defaults(func=again)


def again(args: argparse.Namespace) -> int:
    with open_ledger(args) as ledger, names_from_user():
        request, batch, job_id = queue_commands(args, ledger).queue_again(args.job)
    if args.json:
        print_json({"id": job_id, "batch": batch.id, "seeds": request.seeds, "of": args.job})
    else:
        print(job_id)
    return 0
