"""Each writer's error reads the same everywhere: `batchline run`, `show` and `jobs`, the API's
JSON, and the window (the details pane, the table's and the contact sheet's tooltips)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from PySide6.QtCore import Qt

from cli.run_cmd import change_line
from core.api import ApiConfig, serve_api
from core.batch import BatchSpec, SeedPlan, queue_batch, workflow_hash
from core.controller.causes import unanswered_error
from core.job_state import AttemptResult, JobState, Reason
from core.ledger import AttemptRecord, Ledger, PresetContent
from core.ledger.attempt_error import AttemptError, ErrorKind
from core.reason_texts import reason_text
from desktop.common.thumbnails import ThumbnailLoader
from desktop.jobs.job_details import JobDetailsWidget
from desktop.jobs.job_table_model import Column, JobTableModel
from desktop.sheet.contact_sheet_model import STATUS_ROLE, ContactSheetModel
from simulator.thread import SimulatorThread
from tests.cli.conftest import Cli
from tests.core.helpers import NOISE_WORKFLOW, succeed_late

SERVER = "http://127.0.0.1:9"
# How each writer's error begins in its short rendering.
SHORT = {
    "oom": "out of memory in EmptyImage (node 1)",
    "execution": "error in EmptyImage (node 1): ",
    "validation": "validation error in ImageScale (node 4), input 'upscale_method': Value not in",
    "unanswered": "no answer to its submission: POST /prompt: no answer in 30 s",
    "connection": "not sent: cannot connect to http://127.0.0.1:9",
    "late": "withdrawn: attempt 1, answered late, succeeded first",
}


def _run(cli: Cli, sim: SimulatorThread) -> str:
    cli.server = sim.url
    result = cli("run", "--until-idle", "--poll-interval", "0.05", "--max-queued", "1")
    assert result.code == 0, result.err
    return result.out


def _queue(ledger: Ledger, preset: str) -> str:
    spec = BatchSpec(seeds=SeedPlan(count=1), requester="artist")
    return queue_batch(ledger, preset, spec)[1][0]


def _bad_preset(ledger: Ledger) -> None:
    """Noise scaled with a method ComfyUI does not have: refused, naming node 4's input."""
    bad = json.loads(json.dumps(NOISE_WORKFLOW))
    bad["4"] = {
        "class_type": "ImageScale",
        "inputs": {
            "image": ["2", 0],
            "upscale_method": "bogus",
            "width": 32,
            "height": 32,
            "crop": "disabled",
        },
    }
    bad["3"]["inputs"]["images"] = ["4", 0]
    ledger.presets.add("bad", PresetContent(workflow_hash(bad), bad))


def _written_by_the_verbs(ledger: Ledger) -> dict[str, str]:
    """The writers that need a server misbehaving at the right moment: their verbs, called
    with what dispatch and the reconciler pass them."""
    jobs = {name: _queue(ledger, "noise") for name in ("unanswered", "connection", "late")}
    for name, job_id in jobs.items():
        ledger.submit_attempt(job_id, name, SERVER, "wf")
    ledger.note_unknown_outcome(
        "unanswered",
        Reason.timeout,
        unanswered_error(TimeoutError("POST /prompt: no answer in 30 s")),
    )
    kept = ledger.attempt("unanswered").error  # the reconciler gives it up with its cause
    ledger.observe_retryable("unanswered", AttemptResult.lost, Reason.timeout, kept, 1)
    unreachable = AttemptError(ErrorKind.connection, "cannot connect to http://127.0.0.1:9")
    ledger.observe_retryable(
        "connection", AttemptResult.failed, Reason.connection_error, unreachable, 1
    )
    ledger.observe_retryable("late", AttemptResult.lost, Reason.timeout)
    ledger.submit_attempt(jobs["late"], "late-2", SERVER, "wf")
    assert succeed_late(ledger, "late", [])
    return jobs


@pytest.fixture
def failures(cli: Cli, noise: str, sim_thread: SimulatorThread, home: Path) -> dict[str, Any]:
    """A job per writer of an error (name -> job id), and what `batchline run` printed."""
    jobs: dict[str, str] = {}
    printed = []
    for name, fault in (("oom", "oom"), ("execution", "error")):
        sim_thread.fail_next(1, fault)
        with Ledger(home) as ledger:
            jobs[name] = _queue(ledger, noise)
        printed.append(_run(cli, sim_thread))
    with Ledger(home) as ledger:
        _bad_preset(ledger)
        jobs["validation"] = _queue(ledger, "bad")
    printed.append(_run(cli, sim_thread))
    with Ledger(home) as ledger:
        jobs.update(_written_by_the_verbs(ledger))
    return {"jobs": jobs, "printed": "".join(printed)}


def _last_error(attempts: list[AttemptRecord]) -> AttemptRecord:
    return [a for a in attempts if a.error is not None][-1]


async def _api_jobs(home: Path, job_ids: list[str]) -> list[dict[str, Any]]:
    """Each job as the served API answers GET /v1/jobs/{job}."""
    with Ledger(home) as ledger:
        token = ledger.tokens.create("artist")
        async with (
            serve_api(ledger, ApiConfig("127.0.0.1", 0)) as url,
            httpx.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {token}"}) as api,
        ):
            return [(await api.get(f"/v1/jobs/{job_id}")).json() for job_id in job_ids]


def test_each_writers_error_reads_the_same_everywhere(
    cli: Cli, failures: dict[str, Any], home: Path, tmp_path: Path, qtbot: Any
) -> None:
    jobs: dict[str, str] = failures["jobs"]
    served = dict(zip(jobs, asyncio.run(_api_jobs(home, list(jobs.values()))), strict=True))
    listed = {line.split()[0]: line for line in cli("jobs").out.splitlines()[1:]}
    with Ledger(home) as ledger:
        thumbnails = ThumbnailLoader(tmp_path / "thumbs")
        table = JobTableModel(ledger)
        table.load_all()
        details = JobDetailsWidget(ledger, thumbnails)
        qtbot.addWidget(details)
        sheet = ContactSheetModel(ledger, thumbnails)
        try:
            for name, job_id in jobs.items():
                job = ledger.job(job_id)
                attempt = _last_error(ledger.attempts(job_id))
                assert attempt.error is not None
                short, long = attempt.error.short(), attempt.error.long(attempt.result)
                assert short.startswith(SHORT[name]), name
                words = reason_text(job.reason)
                # `batchline show` and the details pane: the long rendering
                story = cli("show", job_id).out
                shown = long.split("\n")
                assert (
                    f"    error: {shown[0]}\n" + "".join(f"      {line}\n" for line in shown[1:])
                    in story
                ), name
                details.show_job(job)
                assert details.failure.text() == long, name
                # `batchline jobs`, the API, the table and the sheet: the reason in words
                assert (words in listed[job_id]) if words else listed[job_id].split()[2] == "-"
                api_attempt = served[name]["attempts"][attempt.n - 1]
                assert served[name]["reason_text"] == (words or None)
                assert api_attempt["reason_text"] == reason_text(attempt.reason)
                assert (api_attempt["error"], api_attempt["error_text"]) == (
                    attempt.error.to_json(),
                    short,
                )
                shown_row = table.row_of(job_id)
                assert shown_row is not None
                row = table.index(shown_row, Column.reason)
                assert row.data() == words, name
                sheet.load_batch(job.batch)
                cell = sheet.index_of(job_id)
                if job.state == JobState.failed:
                    assert row.data(Qt.ItemDataRole.ToolTipRole) == short, name
                    assert cell.data(STATUS_ROLE) == (f"failed: {words}", "failed")
                    assert cell.data(Qt.ItemDataRole.ToolTipRole).endswith(f"\n{short}"), name
                    printed = change_line(ledger, ledger.transitions(job_id)[-1])
                    assert printed.startswith(f"{job_id} failed ({words}"), name  # its cause
                    assert printed.endswith(f"): {short}"), name
        finally:
            sheet.stop()
            table.stop()
            thumbnails.shutdown()


def test_an_out_of_memory_failure_reads_out_of_memory_everywhere(
    cli: Cli, failures: dict[str, Any], home: Path
) -> None:
    job_id = failures["jobs"]["oom"]
    assert (
        f"{job_id} failed (out of memory): out of memory in EmptyImage (node 1)"
        in failures["printed"]
    )
    assert "out of memory" in next(line for line in cli("jobs").out.splitlines() if job_id in line)
    story = cli("show", job_id).out
    assert story.startswith(f"{job_id}: failed (out of memory)")
    assert "error: out of memory in EmptyImage (node 1)\n" in story
    (served,) = asyncio.run(_api_jobs(home, [job_id]))
    assert (served["reason"], served["reason_text"]) == ("oom", "out of memory")
    assert served["attempts"][0]["error_text"] == "out of memory in EmptyImage (node 1)"
    assert served["attempts"][0]["error"]["kind"] == "oom"
