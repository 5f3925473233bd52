"""One waiting line: `batchline queue`, the composer, the API's 429, the contact sheet and
`batchline jobs` give the same place and estimate for the same job at the same moment (two
requesters, priorities, two servers)."""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict

import httpx

from cli.main import main
from core.api import ApiConfig, serve_api
from core.batch.batch_counts import time_left_text
from core.controller.backpressure import Limits
from core.controller.commands import LedgerCommands
from core.controller.published import status_to_json
from core.controller.status import Connection, ControllerStatus, ServerStatus
from core.durations import duration_text
from core.ledger import NewJob
from desktop.composer.batch_composer import BatchComposerWidget
from desktop.sheet.contact_sheet import ContactSheetWidget
from desktop.sheet.contact_sheet_model import STATUS_ROLE
from tests.core.helpers import succeed as record_success

ONE, TWO = "http://127.0.0.1:8188", "http://127.0.0.1:8189"
STATUS = ControllerStatus(
    connection=Connection.connected,
    server=f"{ONE},{TWO}",
    server_queue=6,
    servers=(ServerStatus(ONE, queue=3), ServerStatus(TWO, queue=3)),  # both full
)


def busy_ledger(ledger, preset_name) -> None:
    """ann: 4 jobs, one running on the first server; bob: 2 urgent and 2 normal ones; two jobs
    done (10 s and 20 s: 15 s is typical). ComfyUI's queues hold 6 prompts (others' too)."""
    for n, seconds in enumerate((10.0, 20.0)):
        (done,) = ledger.create_batch(preset_name, [NewJob({})], requester="x")[1]
        ledger.submit_attempt(done, f"p-done-{n}", ONE, "wf")
        ledger.observe_running(f"p-done-{n}")
        assert record_success(ledger, f"p-done-{n}", [], "", (100.0, 100.0 + seconds))
    ann = ledger.create_batch(preset_name, [NewJob({})] * 4, requester="ann")[1]
    ledger.submit_attempt(ann[0], "p-ann", ONE, "wf")
    ledger.observe_running("p-ann")
    ledger.create_batch(preset_name, [NewJob({})] * 2, requester="bob", priority=1)
    ledger.create_batch(preset_name, [NewJob({})] * 2, requester="bob")


def publish(ledger) -> None:
    """The controller's status as it publishes it (again: a fresh heartbeat)."""
    ledger.controller_runs.begin("run", os.getpid(), "terminal", status_to_json(STATUS))


def cli(capsys, ledger, *args: str) -> tuple[str, str]:
    capsys.readouterr()
    assert main(["--data-dir", str(ledger.folder), *args]) == 0
    return capsys.readouterr()


def the_composer(qtbot, ledger, controller, preset_name) -> tuple[int, str]:
    controller.push(**{key: getattr(STATUS, key) for key in asdict(STATUS)})
    composer = BatchComposerWidget(ledger, controller)
    qtbot.addWidget(composer)
    composer.set_preset(preset_name)
    composer.requester.setText("bob")
    composer.requester.editingFinished.emit()
    composer.priority.setValue(1)
    composer.seeds.count.setValue(1)
    found = re.fullmatch(
        r"This job would stand #(\d+) in line \(your 2 servers get 6 at a time\); "
        r"the last would be done in about (.+)\.",
        composer.notice.text(),
    )
    assert found, composer.notice.text()
    return int(found[1]), found[2]


def the_api(qloop, ledger, preset_name) -> dict[str, object]:
    token = ledger.tokens.create("bob")
    config = ApiConfig("127.0.0.1", 0, Limits(max_pending_per_requester=4))  # bob has 4

    async def ask() -> httpx.Response:
        async with serve_api(ledger, config) as url:
            headers = {"Authorization": f"Bearer {token}"}
            async with httpx.AsyncClient(base_url=url, headers=headers, timeout=10) as http:
                return await http.post("/v1/batches", json={"preset": preset_name, "priority": 1})

    answer = qloop.run_until_complete(ask())
    assert answer.status_code == 429, answer.text
    return answer.json()


def the_sheet(qtbot, ledger, thumbnails, batch: str, job_id: str) -> tuple[str, str]:
    sheet = ContactSheetWidget(ledger, thumbnails, LedgerCommands(ledger))
    qtbot.addWidget(sheet)
    sheet.set_status(STATUS)
    sheet.set_batches([batch], {}, batch)
    qtbot.waitUntil(lambda: sheet.model.rowCount() == 1)
    sheet.refresh_estimate()
    place = sheet.model.index_of(job_id).data(STATUS_ROLE)[0]
    summary = sheet.progress.summary.text()
    sheet.stop()
    return place, summary


def test_every_reader_gives_the_same_place_and_estimate(
    qtbot, qloop, capsys, ledger, preset_name, controller, thumbnails
) -> None:
    busy_ledger(ledger, preset_name)
    publish(ledger)
    place, about = the_composer(qtbot, ledger, controller, preset_name)
    publish(ledger)
    refused = the_api(qloop, ledger, preset_name)
    assert (refused["reason"], refused["position"]) == ("requester_quota", place)
    seconds = refused["estimated_wait_s"]
    assert isinstance(seconds, float)
    assert duration_text(seconds) == about
    # Worked by hand: the servers free a slot each in turn; ann's 3 waiting jobs and bob's 2
    # urgent ones take turns into them; the new urgent one of bob's is next: 6 + 5 + 1, at
    # 15 s each on two servers.
    assert (place, seconds) == (12, 90.0)

    publish(ledger)
    out, err = cli(capsys, ledger, "queue", preset_name, "--requester", "bob", "--priority", "1")
    (job_id,) = out.split()
    assert f"(last at position {place}, about {about} until the last is done)" in err
    assert "11 jobs ahead" in err

    publish(ledger)
    batch = ledger.job(job_id).batch
    shown, summary = the_sheet(qtbot, ledger, thumbnails, batch, job_id)
    assert shown == f"#{place} in line"
    assert summary.endswith(time_left_text(seconds))

    publish(ledger)
    (listed,) = json.loads(cli(capsys, ledger, "jobs", "--batch", batch, "--json")[0])
    assert (listed["place"], listed["estimated_wait_s"]) == (place, seconds)


def test_the_sheet_s_places_follow_a_more_urgent_batch_queued_elsewhere(
    qtbot, ledger, preset_name, thumbnails
) -> None:
    record, (mine,) = ledger.create_batch(preset_name, [NewJob({})], requester="ann")
    sheet = ContactSheetWidget(ledger, thumbnails, LedgerCommands(ledger))
    qtbot.addWidget(sheet)
    sheet.set_batches([record.id], {}, record.id)
    qtbot.waitUntil(lambda: sheet.model.rowCount() == 1)
    sheet.refresh_estimate()
    assert sheet.model.index_of(mine).data(STATUS_ROLE)[0] == "#1 in line"
    _urgent, ids = ledger.create_batch(preset_name, [NewJob({})] * 3, requester="ann", priority=5)
    sheet.update_jobs([ledger.job(job_id) for job_id in ids])  # as the change feed gives them
    qtbot.waitUntil(lambda: sheet.model.index_of(mine).data(STATUS_ROLE)[0] == "#4 in line")
    sheet.stop()
