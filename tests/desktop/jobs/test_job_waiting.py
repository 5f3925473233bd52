"""A pending job no server can run says why in the window: the jobs table (its place cell and the
state's tooltip), the contact sheet's cell, the job details; and each attempt why it went where
it went. Two real simulators' offers, stored as the controller stores them."""

from __future__ import annotations

from PySide6.QtCore import Qt

from core.controller.placing_said import NO_SERVER_SHORT
from core.controller.status import ServerStatus
from core.ledger import Ledger, NewJob
from desktop.jobs import job_table_model
from desktop.jobs.job_table_model import Column
from desktop.jobs.record_models import ATTEMPT_COLUMNS
from desktop.sheet.contact_sheet_model import STATUS_ROLE
from tests.core.controller.model_servers import BASE, NOWHERE, ModelServers, model_servers
from tests.desktop.helpers import until

__all__ = ["model_servers"]


def queue_two(ledger: Ledger, preset: str) -> list[str]:
    jobs = [NewJob({"4.ckpt_name": NOWHERE}), NewJob({"4.ckpt_name": BASE})]
    return ledger.create_batch(preset, jobs, requester="tester")[1]


def cell(window, job_id: str, column: Column, role=Qt.ItemDataRole.DisplayRole):
    row = window.model.row_of(job_id)
    return window.model.index(row, column).data(role)


def test_the_table_the_sheet_and_the_details_say_why_a_job_waits(
    window, ledger, preset_name, controller, qtbot, model_servers: ModelServers, monkeypatch
) -> None:
    monkeypatch.setattr(job_table_model, "PLACING_REFRESH_S", 0.0)
    model_servers.store_offers(ledger)  # after the window started: the next status reads them
    controller.push(servers=(ServerStatus(model_servers.full.url),))
    waiting, runnable = queue_two(ledger, preset_name)
    qtbot.waitUntil(lambda: window.model.rowCount() == 2)
    assert cell(window, waiting, Column.position) == NO_SERVER_SHORT
    assert cell(window, runnable, Column.position) == ""
    tip = cell(window, waiting, Column.state, Qt.ItemDataRole.ToolTipRole)
    assert tip.startswith(f"Waiting: no server has {NOWHERE}.")
    assert cell(window, runnable, Column.state, Qt.ItemDataRole.ToolTipRole) is None

    qtbot.waitUntil(lambda: window.sheet.model.rowCount() == 2)
    sheet = window.sheet.model
    assert sheet.index_of(waiting).data(STATUS_ROLE) == (NO_SERVER_SHORT, "muted")
    assert f"waiting: no server has {NOWHERE}" in sheet.index_of(waiting).data(
        Qt.ItemDataRole.ToolTipRole
    )
    assert sheet.index_of(runnable).data(STATUS_ROLE)[0] != NO_SERVER_SHORT

    window.details.show_job(ledger.job(waiting))
    assert f"Waiting: no server has {NOWHERE}" in window.details.header.text()
    window.details.show_job(ledger.job(runnable))
    assert "Waiting:" not in window.details.header.text()

    # A server comes to list the file: the next status read says it no more, everywhere.
    model_servers.full.set_models({"checkpoints": [BASE, NOWHERE]})
    model_servers.store_offers(ledger)
    controller.push(servers=(ServerStatus(model_servers.base_only.url),))
    assert cell(window, waiting, Column.position) == ""
    assert sheet.index_of(waiting).data(STATUS_ROLE)[0] != NO_SERVER_SHORT


def test_the_waiting_reasons_are_read_once_per_refresh_not_per_paint(
    window, ledger, preset_name, controller, qtbot, model_servers: ModelServers, monkeypatch
) -> None:
    monkeypatch.setattr(job_table_model, "PLACING_REFRESH_S", 0.0)
    model_servers.store_offers(ledger)
    controller.push(servers=(ServerStatus(model_servers.full.url),))
    reads: list[int] = []
    real = job_table_model.WaitingReasons.of
    monkeypatch.setattr(
        job_table_model.WaitingReasons, "of", lambda self, job: reads.append(1) or real(self, job)
    )
    waiting, _ = queue_two(ledger, preset_name)
    qtbot.waitUntil(lambda: window.model.rowCount() == 2)
    read = len(reads)
    for _ in range(5):
        cell(window, waiting, Column.position)
        cell(window, waiting, Column.state, Qt.ItemDataRole.ToolTipRole)
    assert len(reads) == read, "data() only looks up what the feed's read worked out"


def test_each_attempt_says_why_it_went_where_it_went(window, ledger, preset_name) -> None:
    _, runnable = queue_two(ledger, preset_name)
    workflow = ledger.batch(ledger.job(runnable).batch).workflow_hash
    because = "127.0.0.1:8189: the only server with sd_xl_base_1.0.safetensors"
    ledger.submit_attempt(
        runnable, "p-1", "http://127.0.0.1:8189", workflow, placed_because=because
    )
    window.details.show_job(ledger.job(runnable))
    column = [name for name, _ in ATTEMPT_COLUMNS].index("Placed because")
    assert window.details.attempts.index(0, column).data() == because


def test_queue_again_and_retry_are_not_blocked_by_the_models_check(
    window, ledger, preset_name, controller, qtbot, qloop, model_servers: ModelServers
) -> None:
    """They ask nothing (a modal question would block here): the controller places them, and a
    job no server can run waits with its reason."""
    model_servers.store_offers(ledger)
    waiting, _ = queue_two(ledger, preset_name)
    qtbot.waitUntil(lambda: window.model.rowCount() == 2)
    window.select_job(waiting)
    window.job_actions.queue_again.trigger()
    qtbot.waitUntil(lambda: window.model.rowCount() == 3)
    ledger.request_cancel(waiting)
    qtbot.waitUntil(lambda: window.model.job_at(window.model.row_of(waiting)).state.is_terminal)
    window.select_job(waiting)
    window.job_actions.retry.trigger()
    qloop.run_until_complete(until(lambda: ("retry", [waiting]) in controller.calls))
    assert ("queue_again", waiting) in controller.calls
