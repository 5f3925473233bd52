"""The API's routes under ``/v1``. Each changes jobs only through the command object the command
line and the window use (``LedgerCommands``: queue, cancel, retry) and ``store_preset``, and a
requester sees and changes only its own jobs (403 otherwise); pictures come as bodies
(``core.api.pictures``), never as paths. Their ledger reads and commands run off the event
loop (``core.api.reads``)."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import web

from core.api.auth import LEDGER, requester_of
from core.api.bodies import batch_request, notice_choice, read_body, read_json
from core.api.config import COMMANDS, CONFIG
from core.api.errors import ApiError
from core.api.events import events
from core.api.openapi import openapi
from core.api.pictures import add_picture, check_pictures, find_pictures, with_pictures
from core.api.reads import off_the_loop
from core.controller.placing_said import WaitingReasons, batch_placement, with_waiting
from core.errors import UnknownRecord
from core.inputs import PictureStore
from core.job_state import JobState
from core.ledger import PresetOutcome, Refused
from core.ledger.job_json import job_json, jobs_json
from core.ledger.settings import PAUSED
from core.presets import MAX_FILE_BYTES, preset_from_bytes
from core.presets.storing import preset_summary, store_preset
from core.whole_numbers import parse_whole

if TYPE_CHECKING:
    from core.controller.commands import LedgerCommands
    from core.ledger import JobRecord, Ledger

PAGE_SIZE = 1000  # jobs a GET /v1/jobs answers at most unless asked for another limit
MAX_PAGE_SIZE = 10_000


def add_routes(app: web.Application) -> None:
    app.router.add_get("/v1/openapi.json", openapi)
    app.router.add_get("/v1/status", status)
    app.router.add_post("/v1/batches", create_batch)
    app.router.add_post("/v1/batches/{batch}/cancel", cancel_batch)
    app.router.add_post("/v1/batches/{batch}/retry", retry_batch)
    app.router.add_get("/v1/jobs", list_jobs)
    app.router.add_get("/v1/jobs/{job}", show_job)
    app.router.add_post("/v1/jobs/{job}/cancel", cancel_job)
    app.router.add_post("/v1/jobs/{job}/retry", retry_job)
    app.router.add_get("/v1/jobs/{job}/outputs/{n}", job_output)
    app.router.add_get("/v1/presets", list_presets)
    app.router.add_post("/v1/presets", add_preset)
    app.router.add_post("/v1/pictures", add_picture)
    app.router.add_get("/v1/pictures", find_pictures)
    app.router.add_get("/v1/events", events)


def _ledger(request: web.Request) -> Ledger:
    return request.app[LEDGER]


def _commands(request: web.Request) -> LedgerCommands:
    return request.app[COMMANDS]


def _own_job(request: web.Request) -> JobRecord:
    """The job named in the path: 404 when unknown, 403 when another requester's (a read:
    off the loop)."""
    job = _ledger(request).job(request.match_info["job"])
    if job.requester != requester_of(request):
        raise ApiError(403, f"job {job.id} is not yours (it is {job.requester}'s)")
    return job


def _own_job_json(request: web.Request) -> dict[str, Any]:
    ledger, job = _ledger(request), _own_job(request)
    return with_pictures(with_waiting(job_json(ledger, job), job, WaitingReasons(ledger)), job)


# --- batches -------------------------------------------------------------------------------------


async def create_batch(request: web.Request) -> web.Response:
    body = await read_json(request)
    preset, asked = batch_request(body, requester_of(request))
    notice = notice_choice(body)
    # 404 for a preset it may not see; read and queued off the loop.
    visible = _ledger(request).presets_for(asked.requester).get

    def queue() -> dict[str, Any]:
        visible(preset)
        check_pictures(PictureStore.of(_ledger(request)), asked)
        batch, job_ids = _commands(request).queue_batch(
            preset, asked.spec(), asked.seed_inputs, notice=notice
        )
        placement = batch_placement(_ledger(request), job_ids).to_json()
        return {"batch": batch.id, "name": batch.name, "jobs": job_ids, "placement": placement}

    return web.json_response(await off_the_loop(request, queue), status=201)


def _own_batch(request: web.Request) -> str:
    """The batch named in the path: 404 when unknown, 403 when another requester's (a read:
    off the loop)."""
    batch = _ledger(request).batch(request.match_info["batch"])
    if batch.requester != requester_of(request):
        raise ApiError(403, f"batch {batch.id} is not yours (it is {batch.requester}'s)")
    return batch.id


async def cancel_batch(request: web.Request) -> web.Response:
    batch = await off_the_loop(request, partial(_own_batch, request))
    outcomes = await off_the_loop(request, partial(_commands(request).cancel_batch, batch))
    return web.json_response(
        {"batch": batch, "jobs": {job_id: str(state) for job_id, state in outcomes.items()}}
    )


async def retry_batch(request: web.Request) -> web.Response:
    """Retry the batch's failed jobs: each one's new attempt (or why it was refused)."""
    batch = await off_the_loop(request, partial(_own_batch, request))
    outcomes = await off_the_loop(request, partial(_commands(request).retry_failed, batch))
    jobs = {
        job_id: str(outcome) if isinstance(outcome, Refused) else outcome
        for job_id, outcome in outcomes.items()
    }
    return web.json_response({"batch": batch, "jobs": jobs})


# --- jobs ----------------------------------------------------------------------------------------


async def list_jobs(request: web.Request) -> web.Response:
    ledger, requester = _ledger(request), requester_of(request)
    batch = request.query.get("batch") or None
    states = None
    if request.query.get("state"):
        names = [name.strip() for name in request.query["state"].split(",")]
        known = {state.value for state in JobState}
        wrong = [name for name in names if name not in known]
        if wrong:
            raise ApiError(400, f"state: {wrong[0]!r} is not one of {', '.join(sorted(known))}")
        states = [JobState(name) for name in names]

    limit = _page_size(request.query.get("limit"))
    after = request.query.get("after") or None

    def read() -> list[dict[str, Any]]:
        if batch is not None and ledger.batch(batch).requester != requester:
            raise ApiError(403, f"batch {batch} is not yours")
        try:
            page = ledger.jobs(
                batch=batch, states=states, requester=requester, after=after, limit=limit
            )
        except UnknownRecord:
            raise ApiError(400, f"after: no job {after!r}") from None
        reasons = WaitingReasons(ledger)
        datas = zip(jobs_json(ledger, page), page, strict=True)
        return [with_pictures(with_waiting(data, job, reasons), job) for data, job in datas]

    jobs = await off_the_loop(request, read)
    following = jobs[-1]["id"] if len(jobs) == limit else None
    return web.json_response({"jobs": jobs, "next": following})


def _page_size(text: str | None) -> int:
    if text is None:
        return PAGE_SIZE
    size = parse_whole(text, 1, MAX_PAGE_SIZE)
    if size is None:
        raise ApiError(400, f"limit: must be a whole number from 1 to {MAX_PAGE_SIZE}")
    return size


async def show_job(request: web.Request) -> web.Response:
    return web.json_response(await off_the_loop(request, partial(_own_job_json, request)))


async def cancel_job(request: web.Request) -> web.Response:
    job = await off_the_loop(request, partial(_own_job, request))
    outcome = (await off_the_loop(request, partial(_commands(request).cancel, [job.id])))[job.id]
    if isinstance(outcome, Refused):
        raise ApiError(409, f"job {job.id}: {outcome.error}")
    return web.json_response({"job": job.id, "state": outcome.value})


async def retry_job(request: web.Request) -> web.Response:
    job = await off_the_loop(request, partial(_own_job, request))
    outcome = (await off_the_loop(request, partial(_commands(request).retry, [job.id])))[job.id]
    if isinstance(outcome, Refused):
        raise ApiError(409, f"job {job.id}: {outcome.error}")
    return web.json_response({"job": job.id, "state": JobState.pending.value, "attempt": outcome})


async def job_output(request: web.Request) -> web.FileResponse:
    """The job's picture number ``n`` (from 0, as in its ``outputs``)."""
    job = await off_the_loop(request, partial(_own_job_json, request))
    outputs: list[str] = job["outputs"]
    text = request.match_info["n"]
    n = parse_whole(text, 0, len(outputs) - 1)
    if n is None:
        have = f"0 to {len(outputs) - 1}" if outputs else "none yet"
        raise ApiError(404, f"job {job['id']} has no picture {text} (numbered from 0: {have})")
    path = Path(outputs[n])
    if not path.is_file():  # noqa: ASYNC240 (one stat of a local file)
        raise ApiError(404, f"picture {text} of job {job['id']} is no longer at {path}")
    return web.FileResponse(path)


# --- presets -------------------------------------------------------------------------------------


async def list_presets(request: web.Request) -> web.Response:
    """The artist's presets and the requester's own (not other requesters')."""
    presets = _ledger(request).presets_for(requester_of(request))
    records = await off_the_loop(request, presets.all)
    return web.json_response({"presets": [preset_summary(record) for record in records]})


async def add_preset(request: web.Request) -> web.Response:
    """The body is a workflow file (API JSON, a ComfyUI PNG or editor JSON), as `preset add`;
    ``?name=`` names it, ``?replace=true`` overwrites a preset of that name if it is the
    requester's own (403 otherwise: `PresetStore` refuses)."""
    name = request.query.get("name", "")
    if not name.strip():
        raise ApiError(400, "name: the preset's name is required (?name=NAME)")
    replace = _flag(request, "replace")
    seed_inputs = request.query.getall("seed_input", []) or None
    data = await read_body(request, MAX_FILE_BYTES)
    preset = preset_from_bytes(data, Path(name), None, seed_inputs)
    store = partial(
        store_preset,
        _ledger(request),
        name,
        preset,
        seed_inputs,
        replace=replace,
        requester=requester_of(request),
    )
    stored = await off_the_loop(request, store)
    body: dict[str, Any] = {
        "name": name,
        "outcome": stored.outcome.value,
        "seed_inputs": [str(seed.ref) for seed in preset.seed_inputs],
        "notices": list(preset.notices),
        "also_named": stored.also_named,
    }
    created = stored.outcome is PresetOutcome.created
    return web.json_response(body, status=201 if created else 200)


def _flag(request: web.Request, name: str) -> bool:
    text = request.query.get(name, "false").lower()
    if text not in ("true", "false", "1", "0"):
        raise ApiError(400, f"{name}: must be true or false, not {text!r}")
    return text in ("true", "1")


# --- status --------------------------------------------------------------------------------------


async def status(request: web.Request) -> web.Response:
    return web.json_response(await off_the_loop(request, partial(_status, request)))


def _status(request: web.Request) -> dict[str, Any]:
    """Who is asking, whether the controller runs and is connected to ComfyUI, the limits, the
    counts of the requester's own jobs and the latest change number (to follow the events
    from).

    Nothing of other requesters (their counts, their jobs' places) nor of this computer (the
    controller's pid, folders, local errors, why it stopped) is told: the artist's window and
    `batchline jobs` show those."""
    ledger, requester, config = _ledger(request), requester_of(request), request.app[CONFIG]
    run = ledger.controller_runs.current()
    controller = None
    if run is not None:
        controller = {
            "running": run.stopped_at is None,
            "connection": str(run.status.get("connection", "")),
        }
    return {
        "requester": requester,
        "paused": PAUSED.get(ledger),
        "controller": controller,
        "limits": {
            "max_pending_per_requester": config.limits.max_pending_per_requester,
            "max_backlog": config.limits.max_backlog,
        },
        "my_jobs": _counts(ledger.count_by_state(requester=requester)),
        "latest_change": ledger.latest_seq(),
    }


def _counts(counts: dict[JobState, int]) -> dict[str, int]:
    return {state.value: counts.get(state, 0) for state in JobState}
