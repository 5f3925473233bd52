"""`batchline jobs` and `batchline show JOB`: the jobs in the ledger and each job's story."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cli.common import (
    format_params,
    names_from_user,
    open_ledger,
    print_json,
    server_urls,
    short_time,
)
from core.batch.batch_title import batch_title
from core.batch.varied import batch_input_names
from core.controller.line_now import line_now
from core.controller.placing_said import WaitingReasons, waiting_text, with_waiting
from core.durations import duration_text
from core.errors import InputError
from core.inputs import picture_params, pictures_json
from core.job_state import AttemptResult, JobState
from core.ledger.attempt_error import ErrorKind
from core.ledger.job_json import job_json, jobs_json
from core.reason_texts import cause_text, reason_text

if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping

    from core.controller.waiting_line import Place
    from core.ledger import AttemptRecord, JobRecord, Ledger


def register(subparsers: Any) -> None:
    jobs = subparsers.add_parser("jobs", help="list jobs (all, of a batch, in a state)")
    jobs.add_argument("--batch", metavar="ID", help="only the jobs of this batch")
    jobs.add_argument(
        "--state",
        action="append",
        choices=[state.value for state in JobState],
        metavar="STATE",
        help="only jobs in this state (repeatable): " + ", ".join(s.value for s in JobState),
    )
    jobs.add_argument("--json", action="store_true", help="print JSON")
    jobs.set_defaults(func=list_jobs)

    show = subparsers.add_parser("show", help="a job's story: attempts, transitions, outputs")
    show.add_argument("job", metavar="JOB")
    show.add_argument("--json", action="store_true", help="print JSON")
    show.set_defaults(func=show_job)


def list_jobs(args: argparse.Namespace) -> int:
    states = [JobState(s) for s in args.state] if args.state else None
    with open_ledger(args) as ledger:
        if args.batch:
            with names_from_user():
                ledger.batch(args.batch)
        jobs = ledger.jobs(batch=args.batch, states=states)
        places = _places(ledger, jobs)
        reasons = WaitingReasons(ledger, _servers(args, ledger))
        if args.json:
            datas = zip(jobs_json(ledger, jobs), jobs, strict=True)
            print_json([_placed(_told(d, job, reasons), places) for d, job in datas])
            return 0
        waiting = {job.id: reasons.of(job) for job in jobs}
    _print_table(jobs, places, waiting)
    return 0


def _places(ledger: Ledger, jobs: list[JobRecord]) -> dict[str, Place]:
    """The pending jobs' places in line and estimates (`core.controller.line_now`, as the
    window's)."""
    pending = [job.id for job in jobs if job.state is JobState.pending]
    return line_now(ledger, wanted=pending).places if pending else {}


def _told(data: dict[str, Any], job: JobRecord, reasons: WaitingReasons) -> dict[str, Any]:
    """A job's JSON with why it waits (``waiting_for``) and its pictures (``pictures``:
    ``NODE.INPUT -> {file, source, sha256, size}``), as the HTTP API gives it."""
    return {**with_waiting(data, job, reasons), "pictures": pictures_json(job.params)}


def _placed(data: dict[str, Any], places: dict[str, Place]) -> dict[str, Any]:
    """A job's JSON with its place in line and estimate (null unless it is pending)."""
    place = places.get(data["id"])
    data["place"] = place.place if place else None
    estimate = place.estimate_s if place else None
    data["estimated_wait_s"] = None if estimate is None else round(estimate, 1)
    return data


def _place_text(place: Place | None) -> str:
    if place is None:
        return "-"
    about = f" ~{duration_text(place.estimate_s)}" if place.estimate_s is not None else ""
    return f"#{place.place}{about}"


def _print_table(jobs: list[JobRecord], places: dict[str, Place], waiting: dict[str, str]) -> None:
    rows = [("JOB", "STATE", "REASON", "ATTEMPT", "REQUESTER", "PLACE", "PARAMS")]
    rows += [
        (
            job.id,
            job.state.value,
            waiting_text(waiting[job.id]) or reason_text(job.reason) or "-",
            str(job.attempt),
            job.requester,
            _place_text(places.get(job.id)),
            format_params(job.params),
        )
        for job in jobs
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)] + [0]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())


def show_job(args: argparse.Namespace) -> int:
    with open_ledger(args) as ledger:
        with names_from_user():
            job = ledger.job(args.job)
        if args.json:
            reasons = WaitingReasons(ledger, _servers(args, ledger))
            print_json(_told(job_json(ledger, job), job, reasons))
        else:
            print("\n".join(story(ledger, job, _servers(args, ledger))))
    return 0


def _servers(args: argparse.Namespace, ledger: Ledger) -> list[str] | None:
    """The servers a pending job's reason weighs while no controller runs (``--server``, else
    the settings'); None when they cannot be read (listing jobs needs no server)."""
    try:
        return server_urls(args, ledger)
    except InputError:
        return None


def story(ledger: Ledger, job: JobRecord, servers: list[str] | None = None) -> list[str]:
    """A job's whole story, as lines for people (``servers``: those configured, for why a
    pending job waits while no controller runs)."""
    batch = ledger.batch(job.batch)
    reason = f" ({reason_text(job.reason)})" if job.reason else ""
    lines = [
        f"{job.id}: {job.state.value}{reason}",
        f"  batch {batch_title(ledger, batch)} ({job.batch}), preset {batch.preset}, "
        f"requester {job.requester}, priority {job.priority}",
        *_params_lines(job.params, batch_input_names(ledger, job.batch, job.params)),
    ]
    if job.warning:
        lines.append(f"  warning: {job.warning}")
    waiting = WaitingReasons(ledger, servers).of(job)
    if waiting:
        lines.append(f"  {waiting_text(waiting)}")
    for attempt in ledger.attempts(job.id):
        lines += _attempt_lines(attempt)
    transitions = ledger.transitions(job.id)
    lines.append("  transitions:" if transitions else "  transitions: none yet")
    lines += [
        f"    {short_time(t.at)}  {t.from_state.value} -> {t.to_state.value}"
        f"  (attempt {t.attempt}: {cause_text(t.cause)})"
        for t in transitions
    ]
    return lines


SHORT_HASH = 12  # the hex digits of a picture's hash `show` gives


def _params_lines(params: Mapping[str, Any], names: Mapping[str, str]) -> list[str]:
    """The job's values on one line (``NODE_ID.INPUT=VALUE``, as ``--set`` takes them), each
    input's name below it (as the composer names it, ``names``), each text of several lines in
    full (indented), and its pictures: each one's file, where it came from, its short hash and
    size."""
    texts = {k: v for k, v in params.items() if isinstance(v, str) and len(v.splitlines()) > 1}
    shown = {
        k: f"({len(v.splitlines())} lines, below)" if k in texts else v for k, v in params.items()
    }
    lines = [f"  params: {format_params(shown)}"]
    if params:
        width = max(map(len, params))
        lines.append("  inputs:")
        lines += [f"    {key.ljust(width)}  {names.get(key, key)}" for key in sorted(params)]
    for key, text in sorted(texts.items()):
        lines.append(f"  {key} ({names.get(key, key)}):")
        lines += [f"    {line}" for line in text.splitlines()]
    pictures = picture_params(params)
    if pictures:
        lines.append("  pictures:")
        lines += [
            f"    {key}: {ref.file} from {ref.source} (sha256 {ref.sha256[:SHORT_HASH]}, "
            f"{ref.size:,} bytes)"
            for key, ref in pictures.items()
        ]
    return lines


def _attempt_lines(attempt: AttemptRecord) -> list[str]:
    error = attempt.error
    unanswered = error is not None and error.kind == ErrorKind.unknown_outcome
    # A submission that got no answer and succeeded all the same did not fail for that reason.
    shown_reason = attempt.reason and not (unanswered and attempt.result == AttemptResult.succeeded)
    reason = f" ({reason_text(attempt.reason)})" if shown_reason else ""
    stalled = ", stalled" if attempt.stalled else ""
    lines = [
        f"  attempt {attempt.n}: {attempt.result.value}{reason}{stalled}, prompt "
        f"{attempt.prompt_id} on {attempt.server}",
        *([f"    placed: {attempt.placed_because}"] if attempt.placed_because else []),
        f"    queued {short_time(attempt.queued_at)}, started {short_time(attempt.started_at)}, "
        f"finished {short_time(attempt.finished_at)}",
    ]
    if error is not None:
        first, *rest = error.long(attempt.result).split("\n")
        lines.append(f"    error: {first}")
        lines += [f"      {line}" for line in rest]
    lines += [f"    output: {path}" for path in attempt.outputs]
    return lines
