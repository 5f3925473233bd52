"""Leaving the demo: presets made there are offered to the real ledger, all checked."""

from __future__ import annotations

import copy
from pathlib import Path

from core.ledger import Ledger, PresetContent
from core.ledger.settings import Settings
from core.presets import workflow_hash
from desktop.app.demo import demo_ledger
from desktop.app.session import Session, SessionOptions
from desktop.presets.demo_presets_dialog import DemoPresetsDialog, offer_demo_presets
from desktop.settings.settings_dialog import SettingsDialog
from tests.desktop.background_helpers import FAST


def add_variant(ledger: Ledger, name: str, width: int) -> dict:
    sample = ledger.presets.get("Portrait txt2img (SD 1.5)").api_workflow
    variant = copy.deepcopy(sample)
    variant["5"]["inputs"]["width"] = width
    ledger.presets.add(name, PresetContent(workflow_hash(variant), variant))
    return variant


def test_the_dialog_starts_all_checked_and_keeps_the_checked(qtbot) -> None:
    dialog = DemoPresetsDialog(["a & b", "c"])
    qtbot.addWidget(dialog)
    assert [check.isChecked() for _, check in dialog.checks] == [True, True]
    assert dialog.checks[0][1].text() == "a && b"  # shown with a literal ampersand
    dialog.checks[1][1].setChecked(False)
    assert dialog.chosen() == ["a & b"]


def test_nothing_is_asked_without_presets_made_in_the_demo(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(DemoPresetsDialog, "ask", classmethod(lambda *a: [][0]))
    with demo_ledger(tmp_path) as demo, Ledger(tmp_path / "real") as real:
        assert offer_demo_presets(demo, real) == []


def test_leaving_the_demo_offers_its_presets_to_the_real_ledger(
    qtbot, qloop, tmp_path, monkeypatch
) -> None:
    offered: list[list[str]] = []

    def ask_settings(cls, ledger, parent=None):
        settings = Settings("http://127.0.0.1:9", tmp_path / "pictures", FAST)
        settings.save(ledger)
        return settings

    def ask_presets(cls, names, parent=None):
        offered.append(names)
        return names[1:]  # the artist unchecks the first

    monkeypatch.setattr(SettingsDialog, "ask", classmethod(ask_settings))
    monkeypatch.setattr(DemoPresetsDialog, "ask", classmethod(ask_presets))
    options = SessionOptions(data_dir=tmp_path / "home", demo=True, demo_job_seconds=0.2)

    async def scenario() -> str:
        session = Session(options)
        window = await session.open()
        assert session.ledger is not None
        add_variant(session.ledger, "Wide", 768)
        add_variant(session.ledger, "another", 320)
        window.connect_action.trigger()
        how = await session.finished
        await session.close()
        return how

    assert qloop.run_until_complete(scenario()) == "restart"
    assert offered == [["another", "Wide"]]
    with Ledger(tmp_path / "home") as real:
        assert real.presets.names() == ["Wide"]
