"""Presets panel and drops anywhere on the window: valid files are stored, broken ones explained."""

from __future__ import annotations

import pytest

from desktop.main_window import MainWindow
from desktop.presets_panel import PresetListModel, PresetsPanel
from tests.desktop.conftest import TXT2IMG
from tests.desktop.helpers import StubDropEvent


@pytest.fixture
def window(qtbot, ledger, controller):
    window = MainWindow(ledger, controller)
    qtbot.addWidget(window)
    return window


def test_preset_list_model_passes_the_tester(qtmodeltester, ledger, preset_name) -> None:
    model = PresetListModel(ledger)
    qtmodeltester.check(model)
    assert model.rowCount() == 1
    assert model.index(0).data() == preset_name


def test_dropping_a_valid_file_adds_and_selects_it(window, ledger, preset_copy) -> None:
    event = StubDropEvent([preset_copy])
    window.dragEnterEvent(event)
    assert event.accepted
    window.dropEvent(event)
    assert ledger.presets.names() == ["fox"]
    assert window.presets.current_name() == "fox"
    assert window.composer.title.text() == "fox"
    assert window.presets.errors.isHidden()


def test_dropping_a_broken_file_shows_its_error_and_changes_nothing(
    preset_name, window, ledger, tmp_path
) -> None:
    window.presets.select(preset_name)
    broken = tmp_path / "broken.json"
    broken.write_text('{"not": "a workflow"', encoding="utf-8")
    window.dropEvent(StubDropEvent([broken]))
    assert ledger.presets.names() == [preset_name]
    assert window.presets.current_name() == preset_name
    assert not window.presets.errors.isHidden()
    message = window.presets.errors.text()
    assert message.startswith("broken.json: ")
    assert "\n" not in message
    assert "Traceback" not in message


def test_a_drop_of_other_files_is_refused(window, tmp_path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("hello", encoding="utf-8")
    event = StubDropEvent([text])
    window.dragEnterEvent(event)
    assert not event.accepted


def test_open_adds_the_chosen_files(qtbot, ledger, monkeypatch, preset_copy) -> None:
    panel = PresetsPanel(ledger)
    qtbot.addWidget(panel)
    monkeypatch.setattr(PresetsPanel, "ask_files", classmethod(lambda cls, parent: [preset_copy]))
    with qtbot.waitSignal(panel.preset_selected) as blocker:
        panel.open_button.click()
    assert blocker.args == ["fox"]


def test_same_name_other_content_gets_a_new_name(qtbot, ledger, tmp_path) -> None:
    panel = PresetsPanel(ledger)
    qtbot.addWidget(panel)
    first = tmp_path / "a" / "fox.json"
    first.parent.mkdir()
    first.write_text(TXT2IMG.read_text().replace("1000", "7"), encoding="utf-8")
    second = tmp_path / "fox.json"
    second.write_text(TXT2IMG.read_text(), encoding="utf-8")
    assert panel.add_files([first, second]) == ["fox", "fox (2)"]
    assert panel.add_files([second]) == ["fox (2)"]


def test_presets_added_by_another_process_appear(qtbot, tmp_path) -> None:
    """The panel follows the ledger: a preset the CLI adds shows up, the selection stays."""
    from core.ledger import Ledger, PresetContent

    workflow = {"1": {"class_type": "EmptyImage", "inputs": {"width": 8}}}
    with Ledger(tmp_path / "home") as ledger:
        ledger.presets.add("first", PresetContent("h1", workflow))
        panel = PresetsPanel(ledger)
        qtbot.addWidget(panel)
        panel.select("first")
        with Ledger(tmp_path / "home") as other:  # stands in for the CLI
            other.presets.add("added elsewhere", PresetContent("h2", workflow))
        qtbot.waitUntil(lambda: panel.model.rowCount() == 2, timeout=5000)
        assert panel.current_name() == "first"
        panel.stop()
