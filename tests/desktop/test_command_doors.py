"""Each command given through each door that offers it (the command line, a served API, the
window offscreen) leaves the same ledger: they all go through the one command object.

The API is served from a thread of its own, over its own handle on the same ledger file (as
`batchline serve` is another process); the window is given a ``ControllerClient``, the
controller of another process seen through the ledger, as the app has.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

import httpx
import pytest

from core.api import ApiConfig, serve_api
from core.controller.backpressure import Limits
from core.controller.client import ControllerClient
from core.job_state import JobState, Reason
from core.ledger import Ledger
from core.ledger.marks import Mark
from core.ledger.settings import MAX_PENDING_PER_REQUESTER, PAUSED
from desktop.composer.batch_composer import BatchComposerWidget
from desktop.jobs.batch_names import ask_and_name
from desktop.jobs.job_actions import JobActions
from desktop.sheet.contact_sheet import ContactSheetWidget
from tests.cli.conftest import Cli
from tests.core.helpers import fail_job, run_job, succeed_job
from tests.desktop.conftest import make_jobs
from tests.desktop.helpers import answer_name, until

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from core.ledger import JobRecord

REQUESTER = "tester"  # make_jobs' requester, and the API token's name


class Door(Protocol):
    def queue(self, preset: str, count: int, start: int) -> str: ...
    def cancel(self, job_ids: list[str]) -> None: ...
    def cancel_batch(self, batch_id: str) -> None: ...
    def retry(self, job_ids: list[str]) -> None: ...


# --- the command line ----------------------------------------------------------------------------


class CliDoor:
    def __init__(self, cli: Cli) -> None:
        self.cli = cli

    def run(self, *args: str) -> str:
        result = self.cli(*args)
        if result.code != 0:
            raise Refusal(result.err or result.out)
        return result.out

    def queue(self, preset: str, count: int, start: int) -> str:
        seeds = ("--count", str(count), "--seed-start", str(start))
        return self.run("queue", preset, *seeds, "--requester", REQUESTER).split()[0]

    def cancel(self, job_ids: list[str]) -> None:
        self.run("cancel", *job_ids)

    def cancel_batch(self, batch_id: str) -> None:
        self.run("cancel", "--batch", batch_id)

    def retry(self, job_ids: list[str]) -> None:
        self.run("retry", *job_ids)

    def retry_failed(self, batch_id: str) -> None:
        self.run("retry", "--batch", batch_id)

    def pause(self) -> None:
        self.run("pause")

    def resume(self) -> None:
        self.run("resume")

    def mark(self, job_ids: list[str], mark: Mark) -> None:
        self.run("mark", *job_ids, f"--{mark.value}")

    def name(self, batch_id: str, name: str) -> None:
        self.run("name", batch_id, name)


class Refusal(Exception):
    """A door refused the command; the message is what it said."""


# --- the API -------------------------------------------------------------------------------------


@contextlib.contextmanager
def served_api(folder: Path, token: str) -> Iterator[httpx.Client]:
    """The API served on a loopback port from a thread with its own event loop and ledger
    handle; a client with ``token``."""
    ready: queue.Queue[tuple[asyncio.AbstractEventLoop, asyncio.Event, str]] = queue.Queue()

    async def serve() -> None:
        stop = asyncio.Event()
        with Ledger(folder) as ledger:
            config = ApiConfig("127.0.0.1", 0, Limits.load(ledger))
            async with serve_api(ledger, config) as url:
                ready.put((asyncio.get_running_loop(), stop, url))
                await stop.wait()

    def run() -> None:
        # a plain loop: under the tests' qasync policy a new loop would be a Qt one
        with asyncio.Runner(loop_factory=asyncio.SelectorEventLoop) as runner:
            runner.run(serve())

    thread = threading.Thread(target=run, name="api")
    thread.start()
    loop, stop, url = ready.get(timeout=30)
    headers = {"Authorization": f"Bearer {token}"}
    try:
        with httpx.Client(base_url=url, headers=headers, timeout=30) as client:
            yield client
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(timeout=30)


class ApiDoor:
    def __init__(self, http: httpx.Client) -> None:
        self.http = http

    def post(self, path: str, body: dict[str, Any] | None = None) -> Any:
        answer = self.http.post(path, json=body)
        if answer.status_code >= 400:
            body = answer.json()
            raise Refusal(body.get("message", body["error"]))  # a 429 says it in its message
        return answer.json()

    def queue(self, preset: str, count: int, start: int) -> str:
        body = {"preset": preset, "count": count, "seed_start": start}
        return str(self.post("/v1/batches", body)["jobs"][0])

    def cancel(self, job_ids: list[str]) -> None:
        for job_id in job_ids:
            self.post(f"/v1/jobs/{job_id}/cancel")

    def cancel_batch(self, batch_id: str) -> None:
        self.post(f"/v1/batches/{batch_id}/cancel")

    def retry(self, job_ids: list[str]) -> None:
        for job_id in job_ids:
            self.post(f"/v1/jobs/{job_id}/retry")

    def retry_failed(self, batch_id: str) -> None:
        self.post(f"/v1/batches/{batch_id}/retry")


# --- the window ----------------------------------------------------------------------------------


class WindowDoor:
    """The window's widgets over a ``ControllerClient``: the composer, the job actions, the
    contact sheet and Name batch…."""

    def __init__(self, ledger: Ledger, qtbot: Any, qloop: asyncio.AbstractEventLoop) -> None:
        self.ledger, self.qtbot, self.qloop = ledger, qtbot, qloop
        self.controller = ControllerClient(ledger)
        self.selected: list[JobRecord] = []
        self.actions = JobActions(self.controller, lambda: self.selected, ledger.count_by_state)
        self.actions.confirm = lambda _question: True
        self.refusals: list[str] = []
        self.actions.failed.connect(self.refusals.append)

    def queue(self, preset: str, count: int, start: int) -> str:
        composer = BatchComposerWidget(self.ledger, self.controller)
        self.qtbot.addWidget(composer)
        composer.failed.connect(self.refusals.append)
        composer.set_preset(preset)
        composer.requester.setText(REQUESTER)
        composer.seeds.count.setValue(count)
        composer.seeds.start.setValue(start)
        before = set(self.ledger.job_ids())
        composer.queue()
        self._refused()
        return next(job for job in self.ledger.job_ids() if job not in before)

    def _trigger(self, action: Any, job_ids: list[str]) -> None:
        self.selected = [self.ledger.job(job_id) for job_id in job_ids]
        self.actions.update_enabled()
        action.trigger()
        self.qloop.run_until_complete(until(lambda: not self.actions.busy))
        self._refused()

    def _refused(self) -> None:
        if self.refusals:
            raise Refusal(self.refusals.pop())

    def cancel(self, job_ids: list[str]) -> None:
        self._trigger(self.actions.cancel, job_ids)

    def cancel_batch(self, batch_id: str) -> None:
        self._trigger(self.actions.cancel_batch, self.ledger.job_ids(batch=batch_id)[:1])

    def retry(self, job_ids: list[str]) -> None:
        self._trigger(self.actions.retry, job_ids)

    def retry_failed(self, batch_id: str) -> None:
        self._trigger(self.actions.retry_failed, self.ledger.job_ids(batch=batch_id)[:1])

    def pause(self) -> None:
        self.actions.pause.trigger()

    def resume(self) -> None:
        # the window offers Resume while the controller says dispatch is paused
        self.controller.status = replace(self.controller.status, paused=PAUSED.get(self.ledger))
        self.actions.pause.trigger()

    def mark(self, job_ids: list[str], mark: Mark) -> None:
        sheet = ContactSheetWidget(self.ledger, self.thumbnails, self.controller)
        self.qtbot.addWidget(sheet)
        batch = self.ledger.job(job_ids[0]).batch
        sheet.set_batches([batch], {}, batch)
        self.qtbot.waitUntil(lambda: sheet.model.rowCount() > 0)
        sheet.select_jobs(job_ids)
        sheet.toggle_mark(mark)
        sheet.stop()

    def name(self, batch_id: str, name: str) -> None:
        answer_name(name)
        error = ask_and_name(None, self.ledger, self.controller, batch_id)  # type: ignore[arg-type]
        if error:
            raise Refusal(error)


# --- the doors, as fixtures ----------------------------------------------------------------------


@pytest.fixture
def cli_door(ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> CliDoor:
    return CliDoor(Cli(ledger.folder, capsys))


@pytest.fixture
def api_door(ledger: Ledger) -> Iterator[ApiDoor]:
    with served_api(ledger.folder, ledger.tokens.create(REQUESTER)) as http:
        yield ApiDoor(http)


@pytest.fixture
def window_door(ledger: Ledger, qtbot: Any, qloop: asyncio.AbstractEventLoop, thumbnails: Any):
    door = WindowDoor(ledger, qtbot, qloop)
    door.thumbnails = thumbnails  # type: ignore[attr-defined]
    return door


def door_fixtures(*names: str) -> Any:
    return pytest.mark.parametrize("door_name", [f"{name}_door" for name in names])


@pytest.fixture
def door(request: pytest.FixtureRequest, door_name: str) -> Any:
    return request.getfixturevalue(door_name)


def states(ledger: Ledger, job_ids: list[str]) -> list[JobState]:
    return [ledger.job(job_id).state for job_id in job_ids]


# --- the commands, through each door -------------------------------------------------------------


@door_fixtures("cli", "api", "window")
def test_queue_writes_the_batch_with_its_seeds(door: Door, ledger: Ledger, preset_name) -> None:
    first = door.queue(preset_name, 3, 40)
    (batch,) = ledger.batches()
    jobs = ledger.jobs(batch=batch.id)
    assert jobs[0].id == first
    assert [job.params["3.seed"] for job in jobs] == [40, 41, 42]
    assert {(job.state, job.requester) for job in jobs} == {(JobState.pending, REQUESTER)}


@pytest.fixture
def quota_of_3(ledger: Ledger) -> None:
    """Set before a door opens: `batchline serve` reads its API's limits when it starts."""
    MAX_PENDING_PER_REQUESTER.set(ledger, 3)


@door_fixtures("cli", "api", "window")
def test_queue_past_the_quota_is_refused_whole_with_one_message(
    quota_of_3: None, door: Door, ledger: Ledger, preset_name
) -> None:
    make_jobs(ledger, preset_name, 2)
    with pytest.raises(Refusal) as refused:
        door.queue(preset_name, 2, 0)
    assert "busy: tester has 2 unfinished jobs and may have 3; the 2 new jobs were not queued" in (
        str(refused.value)
    )
    assert len(ledger.job_ids()) == 2


@door_fixtures("cli", "api", "window")
def test_cancel_jobs(door: Door, ledger: Ledger, preset_name) -> None:
    ids = make_jobs(ledger, preset_name, 3)
    run_job(ledger, ids[1])
    door.cancel(ids[:2])
    assert states(ledger, ids) == [JobState.cancelled, JobState.cancelling, JobState.pending]


@door_fixtures("cli", "api", "window")
def test_cancel_a_batch_reaches_every_unfinished_job(door: Door, ledger: Ledger, preset_name):
    ids = make_jobs(ledger, preset_name, 4)
    other = make_jobs(ledger, preset_name, 1)
    run_job(ledger, ids[1])
    succeed_job(ledger, ids[2], [])
    fail_job(ledger, ids[3], Reason.oom)
    door.cancel_batch(ledger.job(ids[0]).batch)
    assert states(ledger, ids) == [
        JobState.cancelled,
        JobState.cancelling,
        JobState.succeeded,
        JobState.failed,
    ]
    assert states(ledger, other) == [JobState.pending]


@door_fixtures("cli", "api", "window")
def test_retry_jobs(door: Door, ledger: Ledger, preset_name) -> None:
    ids = make_jobs(ledger, preset_name, 2)
    fail_job(ledger, ids[0], Reason.oom)
    ledger.request_cancel(ids[1])
    door.retry(ids)
    assert states(ledger, ids) == [JobState.pending, JobState.pending]
    assert [len(ledger.attempts(job_id)) for job_id in ids] == [1, 0]


@door_fixtures("cli", "api", "window")
def test_retry_a_batchs_failed_jobs(door: Any, ledger: Ledger, preset_name) -> None:
    ids = make_jobs(ledger, preset_name, 3)
    fail_job(ledger, ids[0], Reason.oom)
    ledger.request_cancel(ids[1])
    door.retry_failed(ledger.job(ids[0]).batch)
    assert states(ledger, ids) == [JobState.pending, JobState.cancelled, JobState.pending]


@door_fixtures("cli", "window")
def test_pause_then_resume(door: Any, ledger: Ledger) -> None:
    door.pause()
    assert PAUSED.get(ledger)
    door.resume()
    assert not PAUSED.get(ledger)


@door_fixtures("cli", "window")
def test_marks(door: Any, ledger: Ledger, preset_name) -> None:
    ids = make_jobs(ledger, preset_name, 3)
    door.mark(ids[:2], Mark.star)
    door.mark(ids[1:2], Mark.reject)
    assert ledger.marks.of(ids) == {ids[0]: Mark.star, ids[1]: Mark.reject}


@door_fixtures("cli", "window")
def test_name_a_batch(door: Any, ledger: Ledger, preset_name) -> None:
    batch = ledger.job(make_jobs(ledger, preset_name, 1)[0]).batch
    door.name(batch, "  foxes at dusk ")
    assert ledger.batch(batch).name == "foxes at dusk"
    with pytest.raises(Refusal, match="200"):
        door.name(batch, "x" * 201)
    assert ledger.batch(batch).name == "foxes at dusk"
