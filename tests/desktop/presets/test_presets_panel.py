"""Presets panel and drops anywhere on the window: valid files are stored, broken ones explained."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from core.ledger import PresetContent
from core.ledger.arrivals import Arrival, record_arrival
from core.presets.composer_state import load_composer_state, save_composer_state
from core.presets.model import workflow_hash
from desktop.presets.preset_files import SameName
from desktop.presets.presets_panel import OPEN_FOLDER_KEY, PresetListModel, PresetsPanel
from desktop.window.main_window import MainWindow
from tests.desktop.conftest import TXT2IMG
from tests.desktop.helpers import StubDropEvent
from tests.desktop.presets.versions import grey_foxes, shown_value


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
    assert window.banner.isHidden()


def test_dropping_a_broken_file_shows_its_error_and_changes_nothing(
    preset_name, window, ledger, tmp_path
) -> None:
    window.presets.select(preset_name)
    broken = tmp_path / "broken.json"
    broken.write_text('{"not": "a workflow"', encoding="utf-8")
    window.dropEvent(StubDropEvent([broken]))
    assert ledger.presets.names() == [preset_name]
    assert window.presets.current_name() == preset_name
    assert not window.banner.isHidden()
    message = window.banner.text()
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
    folders = []

    def ask(cls, parent, folder):
        folders.append(folder)
        return [preset_copy]

    monkeypatch.setattr(PresetsPanel, "ask_files", classmethod(ask))
    with qtbot.waitSignal(panel.preset_selected) as blocker:
        panel.open_button.click()
    assert blocker.args == ["fox"]
    panel.open_button.click()
    # Home the first time (never the source checkout), then the folder last opened from.
    assert folders == [Path.home(), preset_copy.parent]


def test_open_starts_at_home_when_the_last_folder_is_gone(qtbot, ledger, tmp_path) -> None:
    panel = PresetsPanel(ledger)
    qtbot.addWidget(panel)
    ledger.settings.set(OPEN_FOLDER_KEY, str(tmp_path / "gone"))
    assert panel.open_folder() == Path.home()


def _two_foxes(tmp_path: Path) -> tuple[Path, Path]:
    first = tmp_path / "a" / "fox.json"
    first.parent.mkdir()
    first.write_text(TXT2IMG.read_text().replace("1000", "7"), encoding="utf-8")
    second = tmp_path / "fox.json"
    second.write_text(TXT2IMG.read_text(), encoding="utf-8")
    return first, second


def test_same_name_other_content_asks_and_keep_both_gets_a_new_name(
    qtbot, ledger, tmp_path, monkeypatch
) -> None:
    asked: list[str] = []
    monkeypatch.setattr(
        PresetsPanel,
        "ask_same_name",
        staticmethod(lambda _p, n: asked.append(n) or SameName.keep_both),
    )
    panel = PresetsPanel(ledger)
    qtbot.addWidget(panel)
    first, second = _two_foxes(tmp_path)
    assert panel.add_files([first, second]) == ["fox", "fox (2)"]
    assert asked == ["fox"]
    with qtbot.waitSignal(panel.notice) as said:
        assert panel.add_files([second]) == ["fox (2)"]  # dropped twice: no third copy
    assert said.args == ["'fox (2)' is already a preset with this workflow."]
    assert asked == ["fox"]
    panel.stop()


def test_dropping_the_same_workflow_twice_can_update_the_preset(
    qtbot, ledger, tmp_path, monkeypatch
) -> None:
    monkeypatch.setattr(PresetsPanel, "ask_same_name", staticmethod(lambda _p, _n: SameName.update))
    panel = PresetsPanel(ledger)
    qtbot.addWidget(panel)
    first, second = _two_foxes(tmp_path)
    assert panel.add_files([first]) == ["fox"]
    with qtbot.waitSignal(panel.notice) as said:
        assert panel.add_files([second]) == ["fox"]
    assert said.args == ["Updated 'fox' (version 2; the old one is kept)."]
    assert ledger.presets.names() == sorted(ledger.presets.names())
    assert "fox (2)" not in ledger.presets.names()
    versions = ledger.presets.versions("fox")
    assert len(versions) == 2
    assert versions[0].workflow_hash != versions[1].workflow_hash
    assert panel.current_name() == "fox"
    panel.stop()


def test_cancelling_the_same_name_question_adds_nothing(
    qtbot, ledger, tmp_path, monkeypatch
) -> None:
    monkeypatch.setattr(PresetsPanel, "ask_same_name", staticmethod(lambda _p, _n: None))
    panel = PresetsPanel(ledger)
    qtbot.addWidget(panel)
    first, second = _two_foxes(tmp_path)
    panel.add_files([first])
    before = ledger.presets.names()
    assert panel.add_files([second]) == []
    assert ledger.presets.names() == before
    assert len(ledger.presets.versions("fox")) == 1
    panel.stop()


def test_a_preset_sent_from_comfyui_is_selected_and_said(qtbot, ledger, tmp_path) -> None:
    panel = PresetsPanel(ledger)
    qtbot.addWidget(panel)
    first, _ = _two_foxes(tmp_path)
    panel.add_files([first])
    record_arrival(ledger, Arrival("fox", 1, "comfyui", "http://127.0.0.1:8188", ledger.now()))
    with qtbot.waitSignal(panel.arrived, timeout=5000) as arrived:
        pass
    assert arrived.args == ["fox"]
    assert panel.current_name() == "fox"
    panel.stop()


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


@pytest.fixture
def panel(qtbot, ledger, preset_name):
    panel = PresetsPanel(ledger)
    qtbot.addWidget(panel)
    panel.select(preset_name)
    yield panel
    panel.stop()


def add_named(ledger, *names: str) -> None:
    record = ledger.presets.get(ledger.presets.names()[0])
    for name in names:
        ledger.presets.add(name, PresetContent(record.workflow_hash, record.api_workflow))


def test_presets_sort_whatever_their_case(panel, ledger, preset_name) -> None:
    add_named(ledger, "apple", "Banana", "cherry")
    panel.follow_ledger()
    shown = [panel.model.index(r).data() for r in range(panel.model.rowCount())]
    assert shown == ["apple", "Banana", "cherry", preset_name]


def test_rename_follows_in_the_list_and_keeps_the_composer_state(panel, ledger, preset_name):
    save_composer_state(ledger, preset_name, {"values": {"3.steps": 9}})
    monkey_answer = "Fox at dusk"
    panel.ask_text = lambda *a: monkey_answer
    panel.ask_rename(preset_name)
    assert ledger.presets.names() == ["Fox at dusk"]
    assert panel.current_name() == "Fox at dusk"
    assert load_composer_state(ledger, "Fox at dusk") == {"values": {"3.steps": 9}}
    assert load_composer_state(ledger, preset_name) is None


def test_renaming_to_a_taken_name_is_refused_with_one_line(panel, ledger, preset_name) -> None:
    failed: list[str] = []
    panel.failed.connect(failed.append)
    add_named(ledger, "taken")
    assert not panel.rename(preset_name, "taken")
    assert failed == ["a preset named 'taken' already exists"]
    assert sorted(ledger.presets.names()) == sorted([preset_name, "taken"])
    assert panel.rename(preset_name, preset_name.upper())  # its own name in other case is fine
    assert len(failed) == 1


def test_duplicate_selects_a_copy_with_the_composer_state(panel, ledger, preset_name) -> None:
    save_composer_state(ledger, preset_name, {"values": {"3.steps": 9}})
    copy = panel.duplicate(preset_name)
    assert copy == f"{preset_name} copy"
    assert panel.duplicate(preset_name) == f"{preset_name} copy (2)"
    assert ledger.presets.get(copy).api_workflow == ledger.presets.get(preset_name).api_workflow
    assert load_composer_state(ledger, copy) == {"values": {"3.steps": 9}}
    assert panel.current_name() == f"{preset_name} copy (2)"


def test_remove_asks_first(panel, ledger, preset_name) -> None:
    add_named(ledger, "zebra")
    panel.follow_ledger()
    asked = []
    panel.confirm = lambda parent, title, text: asked.append(text) or False
    panel.ask_remove(preset_name)
    assert sorted(ledger.presets.names()) == sorted([preset_name, "zebra"])
    panel.confirm = lambda *a: True
    panel.ask_remove(preset_name)
    assert ledger.presets.names() == ["zebra"]
    assert panel.current_name() == "zebra"
    assert preset_name in asked[0]


def test_the_context_menu_offers_its_actions(panel, ledger, preset_name) -> None:
    menu = panel.context_menu(preset_name)
    actions = menu.actions()
    texts = [action.text() for action in actions]
    assert texts == ["&Rename…", "&Duplicate", "&Versions…", "Re&move…"]
    actions[1].trigger()
    assert f"{preset_name} copy" in ledger.presets.names()


def test_a_new_version_of_the_shown_preset_is_shown_keeping_the_artists_edits(
    window, ledger, tmp_path, monkeypatch
) -> None:
    """Seen: "Updated 'fox' (version 2)", and the composer kept version 1's workflow, the one
    it queued; so did a version sent from ComfyUI's editor while the preset was shown."""
    monkeypatch.setattr(PresetsPanel, "ask_same_name", staticmethod(lambda _p, _n: SameName.update))
    four, twenty, eight = grey_foxes(tmp_path, 4, 20, 8)
    window.show()
    assert window.presets.add_files([four]) == ["fox"]
    assert shown_value(window, "3.steps") == 4
    cfg = next(e for p, e in window.composer.parameters_box.editors if str(p.ref) == "3.cfg")
    cfg.setValue(9.5)  # the artist's edit, not saved
    assert window.presets.add_files([twenty]) == ["fox"]
    assert (shown_value(window, "3.steps"), shown_value(window, "3.cfg")) == (20, 9.5)
    workflow = json.loads(eight.read_text(encoding="utf-8"))  # stored by another process
    ledger.presets.add("fox", PresetContent(workflow_hash(workflow), workflow), replace=True)
    window.presets.follow_ledger()
    assert (shown_value(window, "3.steps"), shown_value(window, "3.cfg")) == (8, 9.5)


def test_a_preset_changed_in_the_composer_is_marked_edited_until_saved_or_reset(
    qtbot, window, ledger, controller, preset_name, monkeypatch
) -> None:
    from PySide6.QtWidgets import QInputDialog, QMessageBox

    from tests.desktop.helpers import answer_question

    def shown() -> tuple[str, str]:
        row = window.presets.model.index(window.presets.model.row_of(preset_name))
        return row.data(), window.composer.title.text()

    window.presets.follow_ledger()
    window.presets.select(preset_name)
    composer = window.composer
    steps = composer.parameters_box.editor("3.steps")
    own = steps.value()
    composer.seeds.count.setValue(7)
    assert shown() == (preset_name, preset_name), "seeds are not the preset's values"
    steps.setValue(own + 5)
    edited = f"{preset_name} (edited)"
    assert shown() == (edited, edited)
    assert "Save as preset" in window.presets.model.index(0).data(Qt.ItemDataRole.ToolTipRole)
    steps.setValue(own)
    assert shown() == (preset_name, preset_name), "back to its own value: nothing to save"
    steps.setValue(own + 5)
    again = MainWindow(ledger, controller)  # a restart: the mark is read from the ledger
    qtbot.addWidget(again)
    assert again.presets.model.index(0).data() == edited
    composer.reset_button.click()
    assert shown() == (preset_name, preset_name)
    composer.parameters_box.editor("3.steps").setValue(own + 5)
    assert shown() == (edited, edited)
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: (preset_name, True))
    answer_question(QMessageBox.StandardButton.Yes, [])
    composer.save_button.click()
    assert ledger.presets.get(preset_name).api_workflow["3"]["inputs"]["steps"] == own + 5
    assert shown() == (preset_name, preset_name), "saved: its own values now"
