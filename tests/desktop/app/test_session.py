"""Tests for desktop.app.session: when a session is the demo, never over a ledger with jobs;
what a restart after Settings keeps."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QSpinBox

from core.controller import ControllerConfig
from core.ledger import Ledger
from core.ledger.settings import SERVER, Settings
from desktop.app import session as session_module
from desktop.app.demo import free_port
from desktop.app.first_start import FirstChoice, FirstStartQuestion
from desktop.app.session import Session, SessionOptions, server_configured, wants_demo
from desktop.presets.preset_files import add_preset_file
from desktop.settings.settings_dialog import SettingsDialog
from simulator import SimulatorConfig
from simulator.thread import SimulatorThread
from tests.desktop.conftest import GRADIENT, TXT2IMG

if TYPE_CHECKING:
    pass

FAST = ControllerConfig(poll_active_s=0.05, poll_idle_s=0.2, grace_s=0.5)


def test_demo_only_when_asked_or_chosen_at_a_first_start(qloop, tmp_path, monkeypatch) -> None:
    nothing = f"http://127.0.0.1:{free_port()}"  # where nothing answers
    asked: list[str] = []

    async def ask(cls, found):
        asked.append(found.line())
        return FirstChoice.demo

    monkeypatch.setattr(FirstStartQuestion, "ask", classmethod(ask))
    options = SessionOptions(data_dir=tmp_path)

    async def decide() -> tuple[bool, bool, bool]:
        with Ledger(tmp_path / "fresh") as fresh, Ledger(tmp_path / "set") as configured:
            SERVER.set(configured, "http://gpu:8188")
            return (
                await wants_demo(options, fresh, nothing),
                await wants_demo(options, configured, nothing),
                await wants_demo(SessionOptions(data_dir=tmp_path, demo=True), configured),
            )

    assert qloop.run_until_complete(decide()) == (True, False, True)
    assert asked == [f"Nothing answers at {nothing[7:]}, where ComfyUI usually is."], "once"


def test_a_first_start_says_the_comfyui_found_and_uses_it_when_chosen(
    qtbot, qloop, tmp_path, monkeypatch
) -> None:
    """No server set, a ComfyUI (the simulator) at the usual address: the artist is told
    "Found ComfyUI 0.3.64 at ...", chooses to use it, and the window is on it, set for next
    time; before, it was used without a word."""
    sim = SimulatorThread(SimulatorConfig(job_seconds=0.2, output_dir=tmp_path / "sim"))
    url = sim.start()
    asked: list[str] = []

    async def ask(cls, found):
        asked.append(found.line())
        return FirstChoice.use

    monkeypatch.setattr(FirstStartQuestion, "ask", classmethod(ask))
    monkeypatch.setattr(Session, "default_server", url)

    async def scenario() -> tuple[bool, str]:
        session = Session(SessionOptions(data_dir=tmp_path / "home"))
        window = await session.open()
        try:
            assert session.ledger is not None
            return window.demo, SERVER.get(session.ledger)
        finally:
            await session.close()

    try:
        demo, server = qloop.run_until_complete(scenario())
    finally:
        sim.stop()
    assert asked == [f"Found ComfyUI {SimulatorConfig().version} at {url[7:]}."]
    assert not demo
    assert server == url


def test_settings_at_a_first_start_asks_again_when_cancelled(qloop, tmp_path, monkeypatch):
    answers = [FirstChoice.settings, FirstChoice.settings]
    saved = [False, True]

    async def ask(cls, found):
        return answers.pop(0)

    async def edit(ledger):
        return saved.pop(0)

    monkeypatch.setattr(FirstStartQuestion, "ask", classmethod(ask))
    monkeypatch.setattr(session_module, "edit_settings", edit)
    nothing = f"http://127.0.0.1:{free_port()}"
    with Ledger(tmp_path / "fresh") as fresh:
        demo = qloop.run_until_complete(wants_demo(SessionOptions(tmp_path), fresh, nothing))
    assert demo is False
    assert answers == saved == []


def test_a_ledger_with_jobs_never_falls_back_to_the_demo(tmp_path) -> None:
    """Jobs made with the default server (e.g. from the CLI) count as a configured server."""
    from core.ledger import NewJob, PresetContent

    with Ledger(tmp_path / "home") as ledger:
        assert not server_configured(ledger)
        ledger.presets.add(
            "p", PresetContent("h", {"1": {"class_type": "EmptyImage", "inputs": {}}})
        )
        ledger.create_batch("p", [NewJob({})], requester="me")
        assert server_configured(ledger)


def test_ok_in_settings_keeps_the_chosen_preset_and_its_edits(
    qtbot, qloop, tmp_path, monkeypatch
) -> None:
    """OK in Settings restarts the session: the new window shows the preset chosen before (not
    the first of the list), with the composer's edits."""
    sim = SimulatorThread(SimulatorConfig(job_seconds=0.2, output_dir=tmp_path / "sim"))
    sim.start()
    with Ledger(tmp_path / "home") as real:
        Settings(sim.url, tmp_path / "pictures", FAST).save(real)
        for preset in (TXT2IMG, GRADIENT):
            assert add_preset_file(real, preset).name
    monkeypatch.setattr(
        SettingsDialog, "ask", classmethod(lambda cls, ledger, *_: Settings.load(ledger))
    )
    options = SessionOptions(data_dir=tmp_path / "home")

    async def scenario() -> tuple[str | None, int, int]:
        first = Session(options)
        window = await first.open()
        window.presets.select("Soft gradient (model-free)")
        width = next(
            e for _p, e in window.composer.parameters_box.editors if isinstance(e, QSpinBox)
        )
        width.setValue(width.value() + 8)
        edited = width.value()
        window.settings_action.trigger()
        assert await first.finished == "restart"
        await first.close("restart")
        again = Session(options)
        window = await again.open()
        try:
            shown = next(
                e for _p, e in window.composer.parameters_box.editors if isinstance(e, QSpinBox)
            )
            return window.presets.current_name(), shown.value(), edited
        finally:
            await again.close()

    try:
        name, shown, edited = qloop.run_until_complete(scenario())
    finally:
        sim.stop()
    assert name == "Soft gradient (model-free)"
    assert shown == edited


def test_a_preset_sent_from_comfyui_brings_the_window_forward_keeping_edits(
    qtbot, qloop, tmp_path
) -> None:
    """A preset arriving through the API (recorded in the ledger by another process) shows
    the window again with the composer on it; the values edited on another preset stay."""
    import asyncio

    from core.ledger.arrivals import Arrival, record_arrival

    sim = SimulatorThread(SimulatorConfig(job_seconds=0.2, output_dir=tmp_path / "sim"))
    sim.start()
    with Ledger(tmp_path / "home") as real:
        Settings(sim.url, tmp_path / "pictures", FAST).save(real)
        names = [add_preset_file(real, preset).name for preset in (TXT2IMG, GRADIENT)]
    options = SessionOptions(data_dir=tmp_path / "home")

    async def scenario() -> tuple[bool, str | None, int, int]:
        session = Session(options)
        window = await session.open()
        try:
            window.presets.select("Soft gradient (model-free)")
            width = next(
                e for _p, e in window.composer.parameters_box.editors if isinstance(e, QSpinBox)
            )
            width.setValue(width.value() + 8)
            edited = width.value()
            window.hide()
            with Ledger(tmp_path / "home") as api_side:
                record_arrival(api_side, Arrival(names[0] or "", 1, "comfyui", "", api_side.now()))
            for _ in range(100):
                if window.isVisible():
                    break
                await asyncio.sleep(0.05)
            visible, current = window.isVisible(), window.presets.current_name()
            window.presets.select("Soft gradient (model-free)")
            shown = next(
                e for _p, e in window.composer.parameters_box.editors if isinstance(e, QSpinBox)
            )
            return visible, current, shown.value(), edited
        finally:
            await session.close()

    try:
        visible, current, shown, edited = qloop.run_until_complete(scenario())
    finally:
        sim.stop()
    assert visible
    assert current == names[0]
    assert shown == edited
