"""Tests for desktop.app.first_start: what a first start finds at ComfyUI's usual address (a
ComfyUI, here the simulator; something else, here a plain aiohttp server; nothing), said in one
sentence, and the question offering it, the demo and Settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from aiohttp import web
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from desktop.app.demo import free_port
from desktop.app.first_start import FirstChoice, FirstStartQuestion, Found, Seen, look_at
from simulator import SimulatorConfig
from simulator.thread import SimulatorThread

if TYPE_CHECKING:
    from collections.abc import Iterator


@pytest.fixture
def simulator(tmp_path) -> Iterator[SimulatorThread]:
    thread = SimulatorThread(SimulatorConfig(job_seconds=0.1, output_dir=tmp_path / "sim"))
    thread.start()
    yield thread
    thread.stop()


def test_a_comfyui_is_found_with_its_version(qloop, simulator) -> None:
    found = qloop.run_until_complete(look_at(simulator.url))
    assert found.seen is Seen.comfyui
    assert found.version == SimulatorConfig().version
    host = simulator.url.split("://")[1]
    assert found.line() == f"Found ComfyUI {found.version} at {host}."


def test_a_server_that_is_not_comfyui_is_told_apart(qloop) -> None:
    async def other() -> Found:
        async def page(_request: web.Request) -> web.Response:
            return web.Response(text="<html>a router's page</html>")

        app = web.Application()
        app.router.add_get("/", page)
        runner = web.AppRunner(app)
        await runner.setup()
        port = free_port()
        await web.TCPSite(runner, "127.0.0.1", port).start()
        try:
            return await look_at(f"http://127.0.0.1:{port}")
        finally:
            await runner.cleanup()

    found = qloop.run_until_complete(other())
    assert found.seen is Seen.not_comfyui
    assert found.line().startswith("Something answered at 127.0.0.1:")
    assert found.line().endswith("that is not ComfyUI.")


def test_nothing_is_said_as_nothing(qloop) -> None:
    port = free_port()
    found = qloop.run_until_complete(look_at(f"http://127.0.0.1:{port}"))
    assert found.seen is Seen.nothing
    assert found.line() == f"Nothing answers at 127.0.0.1:{port}, where ComfyUI usually is."


def _buttons(found: Found) -> list[str]:
    box = FirstStartQuestion.box(found)
    try:
        return sorted(button.text() for button in box.buttons())
    finally:
        box.deleteLater()


def test_only_a_comfyui_found_can_be_used() -> None:
    use, demo, settings = "Use this ComfyUI", "Try the demo", "Settings…"
    server = "http://127.0.0.1:8188"
    assert _buttons(Found(server, Seen.comfyui, "0.3.64")) == sorted([use, demo, settings])
    assert _buttons(Found(server, Seen.not_comfyui)) == sorted([demo, settings])
    assert _buttons(Found(server, Seen.nothing)) == sorted([demo, settings])


@pytest.mark.parametrize(
    ("button", "choice"),
    [
        ("Use this ComfyUI", FirstChoice.use),
        ("Settings…", FirstChoice.settings),
        ("Try the demo", FirstChoice.demo),
        ("", FirstChoice.demo),  # closed with Escape
    ],
)
def test_the_question_answers_the_button_clicked(qloop, button: str, choice: FirstChoice) -> None:
    said: list[str] = []

    def click() -> None:
        boxes = [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox)]
        shown = [box for box in boxes if box.isVisible()]
        if not shown:
            QTimer.singleShot(10, click)
            return
        said.append(shown[0].text())
        if not button:
            shown[0].reject()
            return
        next(b for b in shown[0].buttons() if b.text() == button).click()

    QTimer.singleShot(0, click)
    found = Found("http://127.0.0.1:8188", Seen.comfyui, "0.3.64")
    assert qloop.run_until_complete(FirstStartQuestion.ask(found)) is choice
    assert said == ["Found ComfyUI 0.3.64 at 127.0.0.1:8188."]
