"""`batchline queue PRESET ...`: compose a batch of a stored preset and add its jobs."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from cli.arg_types import axis_inputs, file_axis, picture_axis, whole, wildcard_mode
from cli.common import (
    format_params,
    names_from_user,
    open_ledger,
    print_json,
    queue_commands,
    server_urls,
    warn,
)
from cli.picture_options import PictureOptions, picture_lines, placeholder_axes, spec_pictures
from core.batch import GridAxis
from core.batch.compose import MAX_AXES
from core.batch.queueing import composed_batch
from core.batch.request import BatchRequest
from core.controller.line_now import line_now
from core.controller.placing import servers_now
from core.controller.placing_said import batch_placement
from core.durations import duration_text
from core.errors import InputError
from core.inputs import picture_json
from core.ledger.batch_notices import NoticeChoice
from core.ledger.settings import PAUSED, check_every_setting
from core.notify.webhook_bodies import TEMPLATES, checked_webhook

if TYPE_CHECKING:
    from collections.abc import Mapping

    from core.batch.spec import BatchSpec
    from core.ledger import Ledger


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "queue",
        help="queue a batch of jobs from a preset",
        description="Queue jobs of a stored preset. Without seed options (and without --count) "
        "one job keeps the workflow's own seeds; --count alone counts seeds from 0.",
    )
    parser.add_argument("preset", metavar="PRESET")
    seeds = parser.add_argument_group("seeds")
    seeds.add_argument("--count", type=whole(), help="number of seeds (default 1)")
    seeds.add_argument("--seed-start", type=whole(), help="first seed of the sequence (default 0)")
    seeds.add_argument("--seed-step", type=whole(), help="step between seeds (default 1)")
    seeds.add_argument("--seeds", type=_int_list, metavar="1,2,3", help="an explicit seed list")
    seeds.add_argument("--random-seeds", action="store_true", help="draw --count random seeds")
    seeds.add_argument(
        "--seed-input",
        action="append",
        metavar="NODE.INPUT",
        help="vary these inputs as seeds instead of the preset's (repeatable)",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NODE.INPUT=VALUE",
        help="override a value; @picture.png: that picture file, for an input that takes one "
        "(LoadImage's image)",
    )
    parser.add_argument(
        "--grid",
        action="append",
        default=[],
        type=_grid_axis,
        metavar="NODE.INPUT=V1,V2,...",
        help=f"sweep an input over values (up to {MAX_AXES} axes, with --values; the first "
        "is the sheet's columns, the second its rows, any further one its pages)",
    )
    parser.add_argument(
        "--values",
        action="append",
        dest="grid",
        type=file_axis,
        metavar="NODE.INPUT=@LIST",
        help="an axis over the values of a file: @list.txt (one per line), @table.csv:COLUMN "
        "(a column, by header or index from 0); without @, the text's lines",
    )
    parser.add_argument(
        "--images",
        action="append",
        dest="grid",
        type=picture_axis,
        metavar="NODE.INPUT=DIR_OR_GLOB",
        help="one job per picture: an axis over a folder's pictures (not its subfolders'), a "
        "glob's files (renders/*.png) or one file, in natural order (render2 before render10), "
        "for an input that takes an uploaded picture (LoadImage's image)",
    )
    parser.add_argument(
        "--zip",
        action="append",
        default=[],
        type=axis_inputs,
        metavar="NODE.INPUT,NODE.INPUT",
        help="walk these axes together (one job per value, not every pair; repeatable)",
    )
    parser.add_argument(
        "--wildcards",
        action="append",
        default=[],
        type=wildcard_mode,
        metavar="NODE.INPUT=random|all",
        help="how an input's wildcards ({a|b}, __name__) become texts: random (the default, "
        "chosen by each job's seed) or all (one job per text)",
    )
    parser.add_argument("--requester", default="", help="who asks (default: your user name)")
    parser.add_argument("--priority", type=whole(), default=0, help="higher runs first (default 0)")
    parser.add_argument(
        "--name",
        default="",
        help='a name for the batch (default: its preset and what varies, "Portrait · 40 seeds")',
    )
    parser.add_argument("--json", action="store_true", help="print the jobs as JSON")
    told = parser.add_argument_group("when the batch ends")
    told.add_argument(
        "--no-notify",
        action="store_true",
        help="no desktop notification for this batch (Settings turns them off for all)",
    )
    told.add_argument(
        "--webhook",
        metavar="URL",
        help="POST the batch's end to this http(s) address (tried again while it fails)",
    )
    told.add_argument(
        "--webhook-template",
        choices=TEMPLATES,
        help="the webhook's body: json (the default), ntfy (URL is the topic's), discord, slack",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="queue nothing: say how many jobs the batch makes, show the first few (their "
        "wildcards resolved) and the pictures each picture input takes",
    )
    parser.set_defaults(func=queue)


def queue(args: argparse.Namespace) -> int:
    # Options that do not go together are refused before any picture is read.
    batch_request(args, placeholder_axes(args.grid), tuple(args.set)).spec(_option)
    notice = notice_choice(args)
    with open_ledger(args) as ledger:
        check_every_setting(ledger)  # a bad one refuses before a job is written
        with names_from_user():
            pictures = PictureOptions(ledger, args.preset, keep=not args.dry_run)
        grid, overrides = pictures.axes(args.grid), pictures.overrides(args.set)
        spec = batch_request(args, grid, overrides).spec(_option)
        if args.dry_run:
            _dry_run(ledger, args, spec)
            return 0
        commands = queue_commands(args, ledger)
        with names_from_user():
            batch, job_ids = commands.queue_batch(
                args.preset, spec, args.seed_input or (), name=args.name, notice=notice
            )
        if args.json:
            print_json([{"id": job_id, "batch": batch.id} for job_id in job_ids])
        else:
            print("\n".join(job_ids))
        _placement(ledger, job_ids, server_urls(args, ledger))
        _backpressure(ledger, job_ids, commands.server_count())
    return 0


EXAMPLES = 5  # the jobs a dry run shows


def _dry_run(ledger: Ledger, args: argparse.Namespace, spec: BatchSpec) -> None:
    """The count of jobs and the first few, as they would be queued; nothing is written."""
    with names_from_user():
        _, jobs = composed_batch(ledger, args.preset, spec, seed_inputs=args.seed_input or None)
    examples = [dict(job.params) for job in jobs[:EXAMPLES]]
    pictures = spec_pictures(spec)
    if args.json:
        listed = {key: [picture_json(ref) for ref in refs] for key, refs in pictures.items()}
        print_json({"jobs": len(jobs), "examples": examples, "pictures": listed})
        return
    print(f"{len(jobs)} jobs (nothing queued){', the first:' if examples else ''}")
    print("\n".join(f"  {format_params(params)}" for params in examples))
    if pictures:
        print("\n".join(picture_lines(pictures)))


def _placement(ledger: Ledger, job_ids: list[str], servers: list[str]) -> None:
    """Say per server what the batch lacks when one lacks something, and plainly when some jobs
    can run nowhere now (they are queued all the same, and wait with their reason)."""
    placement = batch_placement(ledger, job_ids, servers_now(ledger, servers))
    if placement.warning():
        warn(placement.warning())
    elif any(not fit.can_run for fit in placement.fit.fits) and placement.known:
        warn(placement.text())


# --- the batch asked for -------------------------------------------------------------------------


def batch_request(
    args: argparse.Namespace,
    grid: tuple[GridAxis, ...],
    overrides: tuple[str, ...] | Mapping[str, Any],
) -> BatchRequest:
    """The batch the options ask for, over ``grid`` (the ``--grid``, ``--values`` and
    ``--images`` axes in their order) with ``overrides`` (``--set``'s)."""
    return BatchRequest(
        count=args.count,
        seed_start=args.seed_start,
        seed_step=args.seed_step,
        seeds=tuple(args.seeds) if args.seeds is not None else None,
        random_seeds=bool(args.random_seeds),
        seed_inputs=tuple(args.seed_input or ()),
        overrides=overrides,
        grid=grid,
        zips=tuple(args.zip),
        wildcards=dict(args.wildcards),
        requester=args.requester,
        priority=args.priority,
    )


def notice_choice(args: argparse.Namespace) -> NoticeChoice:
    """How the batch's end is told (--no-notify, --webhook, --webhook-template).

    Raises:
        InputError: a webhook address that is not http(s), a template without an address.
    """
    if args.webhook is None:
        if args.webhook_template is not None:
            raise InputError("--webhook-template goes with --webhook URL")
        return NoticeChoice(desktop=not args.no_notify)
    try:
        url, template = checked_webhook(args.webhook, args.webhook_template or "json")
    except InputError as exc:
        raise InputError(f"--webhook: {exc}") from None
    return NoticeChoice(not args.no_notify, url, template)


def _option(field: str) -> str:
    """A batch request's field as its option is spelled: ``seed_start`` -> ``--seed-start``."""
    return "--" + field.replace("_", "-")


def _int_list(text: str) -> list[int]:
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a comma-separated list of integers"
        ) from None


def _grid_axis(text: str) -> GridAxis:
    target, equals, values = text.partition("=")
    if not equals or "." not in target or not values:
        raise argparse.ArgumentTypeError(f"{text!r} is not of the form NODE.INPUT=V1,V2,...")
    return GridAxis(target.strip(), tuple(v.strip() for v in values.split(",")))


# --- backpressure --------------------------------------------------------------------------------


def _backpressure(ledger: Ledger, job_ids: list[str], servers: int) -> None:
    """Say at once when the jobs just queued cannot all be sent to ComfyUI now: how many jobs
    are ahead of the first, and where the last stands (`core.controller.line_now`, as
    everywhere)."""
    if PAUSED.get(ledger):
        warn("dispatch is paused: the jobs wait until `batchline resume`")
    if not ledger.lease.taken():
        warn("no controller is running: the jobs wait until `batchline run` (or the app) starts")
    line = line_now(ledger, wanted=job_ids, servers=servers)
    places = sorted(line.places.values(), key=lambda place: place.place)
    if not places or places[-1].at_once:
        return
    first, last = places[0], places[-1]
    estimate = (
        f", about {duration_text(last.estimate_s)} until the last is done"
        if last.estimate_s
        else ""
    )
    warn(
        f"{first.place - 1} jobs ahead; {len(job_ids)} new jobs wait in pending and are sent "
        f"{line.capacity} at a time (last at position {last.place}{estimate})"
    )
