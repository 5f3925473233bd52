"""Settings show each server's model lists as the controller stored them (folder and count, the
files under it and in its tooltip) and "Refresh models" asks through the command object; two
real simulators with different model lists."""

from __future__ import annotations

from core.controller.placing_said import host_text
from core.ledger.settings import MODELS_ASKED
from desktop.settings.settings_dialog import SettingsDialog
from tests.core.controller.model_servers import BASE, REFINER, ModelServers, model_servers
from tests.desktop.fakes import FakeController

__all__ = ["model_servers"]


def test_each_server_shows_its_folders_and_files(
    qtbot, ledger, model_servers: ModelServers
) -> None:
    model_servers.store_offers(ledger)
    dialog = SettingsDialog(ledger)
    qtbot.addWidget(dialog)
    dialog.server.setText(",".join([*model_servers.urls, "http://127.0.0.1:9"]))
    dialog.models.show_models()
    tree = dialog.models.tree
    rows = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
    assert [row.text(0) for row in rows] == [*map(host_text, model_servers.urls), "127.0.0.1:9"]
    assert rows[2].text(1) == "not read yet"
    full = rows[1]
    assert "checkpoints 2" in full.text(1)
    folders = {full.child(i).text(0): full.child(i) for i in range(full.childCount())}
    checkpoints = folders["checkpoints"]
    assert checkpoints.text(1) == "2"
    assert [checkpoints.child(i).text(0) for i in range(2)] == [BASE, REFINER]
    assert checkpoints.toolTip(0) == f"{BASE}\n{REFINER}"
    assert "node classes" in full.toolTip(0)
    assert not dialog.models.refresh_button.isEnabled(), "no command object: no button"


def test_refresh_models_asks_through_the_command_object(
    qtbot, ledger, controller: FakeController, model_servers: ModelServers
) -> None:
    dialog = SettingsDialog(ledger, commands=controller)
    qtbot.addWidget(dialog)
    dialog.server.setText(",".join(model_servers.urls))
    dialog.models.show_models()
    assert dialog.models.tree.topLevelItem(0).text(1) == "not read yet"
    before = MODELS_ASKED.get(ledger)
    dialog.models.refresh_button.click()
    assert ("refresh_models", None) in controller.calls
    assert MODELS_ASKED.get(ledger) != before
    assert "read every server's models again" in dialog.models.note.text()
    model_servers.store_offers(ledger)  # as the controller does when asked
    qtbot.waitUntil(lambda: dialog.models.tree.topLevelItem(0).text(1) != "not read yet")
    assert "checkpoints 1" in dialog.models.tree.topLevelItem(0).text(1)
