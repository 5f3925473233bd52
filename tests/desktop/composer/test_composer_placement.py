"""The composer says per server what a batch lacks and queues without asking when a server can
run it; when none can, it asks once, naming what is missing (two real simulators with different
model lists, their offers stored as the controller stores them)."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtWidgets import QMessageBox

from core.batch import BatchSpec, GridAxis, SeedPlan
from core.controller.placing_said import host_text
from core.ledger import Ledger
from core.presets import preset_from_api
from desktop.composer.batch_composer import BatchComposerWidget
from desktop.composer.composer_placement import composed_placement, grid_points
from desktop.presets.preset_files import add_preset_file
from tests.core.controller.model_servers import (
    BASE,
    NOWHERE,
    REFINER,
    ModelServers,
    ckpt_workflow,
    model_servers,
)
from tests.desktop.fakes import FakeController
from tests.desktop.helpers import answer_question

__all__ = ["model_servers"]


def composer_with(
    qtbot, ledger: Ledger, controller: FakeController, tmp_path: Path, checkpoint: str
) -> BatchComposerWidget:
    path = tmp_path / f"{checkpoint}.json"
    path.write_text(json.dumps(ckpt_workflow(checkpoint)), "utf-8")
    composer = BatchComposerWidget(ledger, controller)
    qtbot.addWidget(composer)
    composer.set_preset(add_preset_file(ledger, path).name)
    composer.seeds.count.setValue(1)
    return composer


def test_one_server_that_can_run_it_queues_without_asking(
    qtbot, ledger: Ledger, controller: FakeController, tmp_path: Path, model_servers: ModelServers
) -> None:
    model_servers.store_offers(ledger)
    composer = composer_with(qtbot, ledger, controller, tmp_path, REFINER)
    composer.seeds.count.setValue(2)
    full, base_only = host_text(model_servers.full.url), host_text(model_servers.base_only.url)
    assert composer.where.text() == f"{full} has everything; {base_only} lacks {REFINER}"
    assert not composer.where.isHidden()
    composer.queue_button.click()  # no question: a modal one would block here
    assert len(ledger.jobs()) == 2


def test_no_server_that_can_run_it_asks_once_naming_what_is_missing(
    qtbot, ledger: Ledger, controller: FakeController, tmp_path: Path, model_servers: ModelServers
) -> None:
    model_servers.store_offers(ledger)
    composer = composer_with(qtbot, ledger, controller, tmp_path, NOWHERE)
    assert f"{host_text(model_servers.full.url)} lacks {NOWHERE}" in composer.where.text()
    asked: list[str] = []
    answer_question(QMessageBox.StandardButton.Cancel, asked)
    composer.queue_button.click()
    assert len(asked) == 1
    assert NOWHERE in asked[0]
    assert host_text(model_servers.base_only.url) in asked[0], "every server is weighed"
    assert ledger.jobs() == []
    answer_question(QMessageBox.StandardButton.Yes, asked)
    composer.queue_button.click()
    assert len(asked) == 2
    assert len(ledger.jobs()) == 1, "queued anyway: the job waits"


def test_the_question_names_its_button_by_what_it_does(
    qtbot, ledger: Ledger, controller: FakeController, tmp_path: Path, model_servers: ModelServers
) -> None:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    model_servers.store_offers(ledger)
    composer = composer_with(qtbot, ledger, controller, tmp_path, NOWHERE)
    buttons: list[str] = []

    def press() -> None:
        box = QApplication.activeModalWidget()
        assert isinstance(box, QMessageBox)
        buttons.append(box.button(QMessageBox.StandardButton.Yes).text())
        box.button(QMessageBox.StandardButton.Cancel).click()

    QTimer.singleShot(0, press)
    composer.queue_button.click()
    assert buttons == ["Queue anyway"]


def test_nothing_is_said_while_no_server_is_read(
    qtbot, ledger: Ledger, controller: FakeController, tmp_path: Path
) -> None:
    composer = composer_with(qtbot, ledger, controller, tmp_path, NOWHERE)
    assert composer.where.isHidden()
    composer.queue_button.click()  # nothing known against it: no question
    assert len(ledger.jobs()) == 1


def test_a_grid_counts_each_points_jobs_without_composing_them(
    ledger: Ledger, model_servers: ModelServers
) -> None:
    model_servers.store_offers(ledger)
    preset = preset_from_api(ckpt_workflow(), Path("ckpt.json"))
    spec = BatchSpec(
        seeds=SeedPlan(count=3), grid=(GridAxis("4.ckpt_name", (BASE, NOWHERE, REFINER)),)
    )
    placement = composed_placement(ledger, preset, spec, seeds=3)
    assert (placement.fit.jobs, placement.fit.unplaceable) == (9, 3)
    assert not placement.runs
    assert placement.warning().startswith("no server can run 3 of its jobs now")


def test_grid_points_walk_zipped_axes_together() -> None:
    spec = BatchSpec(
        grid=(
            GridAxis("3.sampler_name", ("euler", "ddim")),
            GridAxis("3.cfg", (4.0, 7.0, 9.0)),
            GridAxis("3.scheduler", ("normal", "karras")),
        ),
        zips=(("3.sampler_name", "3.scheduler"),),
    )
    points = grid_points(spec)
    assert len(points) == 6  # 2 walking together × 3, not 2 × 3 × 2
    assert {(p["3.sampler_name"], p["3.scheduler"]) for p in points} == {
        ("euler", "normal"),
        ("ddim", "karras"),
    }
