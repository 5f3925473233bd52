"""A preset's versions in the window: each with what it changed of the one before, an old one
restored as a new version (the composer on it), the current one not offered."""

from __future__ import annotations

from desktop.presets.preset_files import SameName
from desktop.presets.preset_versions_dialog import PresetVersionsDialog, changes
from desktop.presets.presets_panel import PresetsPanel
from tests.desktop.presets.versions import grey_foxes, shown_value


def test_an_old_version_is_restored_from_the_versions_dialog(
    qtbot, window, ledger, tmp_path, monkeypatch
) -> None:
    monkeypatch.setattr(PresetsPanel, "ask_same_name", staticmethod(lambda _p, _n: SameName.update))
    four, twenty = grey_foxes(tmp_path, 4, 20)
    window.presets.add_files([four])
    window.presets.add_files([twenty])
    dialog = PresetVersionsDialog(ledger, "fox", window)
    qtbot.addWidget(dialog)
    rows = [dialog.table.topLevelItem(n) for n in range(dialog.table.topLevelItemCount())]
    assert [row.text(0) for row in rows] == ["1", "2 (current)"]
    assert [row.text(4) for row in rows] == ["first version", "KSampler · steps 4 → 20"]
    assert not dialog.restore_button.isEnabled(), "the current one is current already"
    dialog.table.setCurrentItem(rows[0])
    dialog.restore_button.click()
    assert dialog.chosen == 1
    monkeypatch.setattr(PresetsPanel, "choose_version", staticmethod(lambda _w, _l, _n: 1))
    with qtbot.waitSignal(window.presets.notice) as said:
        window.presets.ask_version("fox")
    assert said.args == ["Version 1 of 'fox' is current again, as version 3."]
    assert shown_value(window, "3.steps") == 4
    assert len(ledger.presets.versions("fox")) == 3


def test_what_a_version_changed_is_said_input_by_input() -> None:
    before = {"3": {"class_type": "KSampler", "inputs": {"steps": 4, "model": ["4", 0]}}}
    after = {
        "3": {"class_type": "KSampler", "inputs": {"steps": 20, "model": ["5", 0]}},
        "10": {"class_type": "LoraLoader", "inputs": {}},
    }
    assert changes(before, after) == (
        "3.model linked anew · 3.steps 4 → 20 · + LoraLoader (node 10)"
    )
    assert changes(after, before).endswith("− LoraLoader (node 10)")
    assert changes(before, before) == "same inputs"
    many = {"3": {"class_type": "KSampler", "inputs": {f"i{n}": n for n in range(7)}}}
    assert changes(before, many) == (
        "3.i0 none → 0 · 3.i1 none → 1 · 3.i2 none → 2 · 3.i3 none → 3 and 5 more"
    )
