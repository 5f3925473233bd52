"""Settings go to the ledger, the token to the keyring (or $BATCHLINE_TOKEN), never the DB."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QTimer
from PySide6.QtWidgets import QApplication, QLabel, QWidget

from core.comfy.token_store import load_token, save_token
from core.ledger import Ledger
from core.ledger.settings import (
    ALLOWED_ORIGINS,
    CONTROLLER,
    EXPORT_SIDECAR,
    NOTIFY_DESKTOP,
    WILDCARDS_FOLDER,
    Settings,
)
from desktop.app.session import server_configured
from desktop.settings.settings_dialog import SettingsDialog
from tests.desktop.helpers import shown_ampersands


def test_settings_are_stored_in_the_ledger(qtbot, ledger, memory_keyring, tmp_path) -> None:
    dialog = SettingsDialog(ledger)
    qtbot.addWidget(dialog)
    dialog.server.setText("http://render-box:8188")
    dialog.token.setText("s3cret")
    dialog.global_cap.setValue(5)
    dialog.max_attempts.setValue(2)
    dialog.output.setText(str(tmp_path / "pictures"))
    dialog.apply()
    stored = Settings.load(ledger)
    assert stored.server == "http://render-box:8188"
    assert server_configured(ledger)
    assert stored.output_dir == tmp_path / "pictures"
    assert CONTROLLER.get(ledger).global_cap == 5
    assert stored.controller.max_attempts == 2
    assert memory_keyring.store == {("Batchline", "http://render-box:8188"): "s3cret"}
    assert "s3cret" not in ledger.path.read_bytes().decode("latin-1")


def test_without_a_keyring_the_dialog_says_so(qtbot, ledger, no_keyring, monkeypatch) -> None:
    dialog = SettingsDialog(ledger)
    qtbot.addWidget(dialog)
    assert "BATCHLINE_TOKEN" in dialog.keyring_note.text()
    assert not dialog.token.isEnabled()
    assert not save_token("http://x", "t")
    monkeypatch.setenv("BATCHLINE_TOKEN", "from-env")
    assert load_token("http://x") == "from-env"


def test_several_servers_share_the_token_and_bad_addresses_are_named(
    qtbot, ledger, memory_keyring
) -> None:
    dialog = SettingsDialog(ledger)
    qtbot.addWidget(dialog)
    dialog.server.setText("http://gpu-1:8188, gpu-2:8188")
    dialog.accept()
    assert dialog.result() != dialog.DialogCode.Accepted
    assert dialog.server_note.text() == "Not an http(s) server address: 'gpu-2:8188'"
    dialog.server.setText("http://artist:hunter2@gpu-1:8188")
    dialog.accept()
    assert dialog.result() != dialog.DialogCode.Accepted
    note = dialog.server_note.text()
    assert "hunter2" not in note
    assert note.startswith("No user name or password in a server address (http://gpu-1:8188)")
    assert "Settings" in note
    dialog.server.setText("http://gpu-1:8188, http://gpu-2:8188/")
    dialog.token.setText("t0ken")
    dialog.accept()
    assert dialog.result() != dialog.DialogCode.Accepted, "no ComfyUI answers there"
    assert dialog.save_button.text() == "Save &anyway"
    dialog.accept()
    assert dialog.result() == dialog.DialogCode.Accepted
    dialog.apply()
    assert Settings.load(ledger).server == "http://gpu-1:8188, http://gpu-2:8188/"
    assert memory_keyring.store == {
        ("Batchline", "http://gpu-1:8188"): "t0ken",
        ("Batchline", "http://gpu-2:8188"): "t0ken",  # under the address the clients use
    }


def test_the_address_is_tested_before_saving(qtbot, ledger, slow_sim) -> None:
    nothing = "127.0.0.1:9"  # where no ComfyUI answers
    dialog = SettingsDialog(ledger)
    qtbot.addWidget(dialog)
    dialog.server.setText(f"http://{nothing}")
    dialog.accept()
    assert dialog.result() != dialog.DialogCode.Accepted
    note = dialog.server_note.text()
    assert note.startswith(f"No ComfyUI answers at {nothing}: "), note
    assert "jobs wait until it answers" in note
    assert dialog.save_button.text() == "Save &anyway"
    dialog.server.setText(slow_sim.url)
    assert dialog.save_button.text() == "OK", "a new address is tested again"
    dialog.test_button.click()
    host = slow_sim.url.split("://", 1)[1].rstrip("/")
    assert dialog.server_note.text() == f"ComfyUI 0.3.64 answers at {host}."
    dialog.accept()
    assert dialog.result() == dialog.DialogCode.Accepted


def test_mnemonics_are_underlined_not_shown(qtbot, ledger) -> None:
    """A label's ``&`` marks its shortcut only when it has a buddy; else it shows itself."""
    dialog = SettingsDialog(ledger)
    qtbot.addWidget(dialog)
    assert shown_ampersands(dialog) == []
    output = next(lbl for lbl in dialog.findChildren(QLabel) if lbl.text() == "&Output folder")
    assert output.buddy() is dialog.output


def test_a_short_dialog_scrolls_its_fields_and_keeps_every_note_whole(qtbot, ledger) -> None:
    """As on a 1366x768 screen at 200 %: the fields scroll, a note is never squeezed, and OK
    stays in sight."""
    dialog = SettingsDialog(ledger)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.server.setText("http://127.0.0.1:9")
    dialog.test()
    dialog.resize(480, 220)
    note = dialog.server_note
    qtbot.waitUntil(lambda: note.height() >= note.heightForWidth(note.width()))
    assert dialog.fields.verticalScrollBar().maximum() > 0
    ok = dialog.save_button
    assert dialog.rect().contains(ok.geometry().translated(ok.parentWidget().pos()))


def test_the_wildcards_folder_is_a_setting(qtbot, ledger, tmp_path) -> None:
    dialog = SettingsDialog(ledger)
    qtbot.addWidget(dialog)
    assert dialog.wildcards.text() == str(ledger.folder / "wildcards")
    dialog.apply()
    assert WILDCARDS_FOLDER.get(ledger) is None  # the default shown is not stored
    dialog.wildcards.setText("wildcards")
    assert (
        dialog.problem()
        == "The wildcards folder must be a full path (from / or ~), not 'wildcards'"
    )
    dialog.wildcards.setText(str(tmp_path / "lists"))
    dialog.apply()
    assert WILDCARDS_FOLDER.get(ledger) == tmp_path / "lists"
    again = SettingsDialog(ledger)
    qtbot.addWidget(again)
    assert again.wildcards.text() == str(tmp_path / "lists")


def test_notifications_are_turned_off_and_on_for_every_batch(qtbot, ledger) -> None:
    dialog = SettingsDialog(ledger)
    qtbot.addWidget(dialog)
    assert dialog.notify.isChecked()
    assert dialog.notify.accessibleName() == "Notify when a batch ends"
    dialog.notify.setChecked(False)
    dialog.apply()
    assert NOTIFY_DESKTOP.get(ledger) is False
    again = SettingsDialog(ledger)
    qtbot.addWidget(again)
    assert not again.notify.isChecked()


def test_other_pages_that_may_send_workflows_are_a_setting(qtbot, ledger) -> None:
    """They were `batchline origins add` only: an artist whose ComfyUI is reached by another
    name had no way in the window to let its editor send."""
    dialog = SettingsDialog(ledger)
    qtbot.addWidget(dialog)
    assert dialog.origins.text() == ""
    dialog.origins.setText("box.lan:8188")
    assert dialog.problem() == (
        "Other pages: 'box.lan:8188' is not a web page's origin (scheme://host:port)"
    )
    dialog.origins.setText("http://box.lan:8188/, https://proxy.example, http://box.lan:8188")
    assert dialog.problem() is None
    dialog.apply()
    assert ALLOWED_ORIGINS.get(ledger) == "http://box.lan:8188, https://proxy.example"
    again = SettingsDialog(ledger)
    qtbot.addWidget(again)
    assert again.origins.text() == "http://box.lan:8188, https://proxy.example"


def test_the_dialog_goes_with_its_answer(qtbot, tmp_path) -> None:
    """Found by the monkey: the dialog was kept, hidden, as its parent's child after ``ask``;
    when its address field lost focus later it read the ledger its caller had closed
    ("database connection not opened", an uncaught exception in the window)."""
    parent = QWidget()
    qtbot.addWidget(parent)
    with Ledger(tmp_path / "ledger") as ledger:
        QTimer.singleShot(0, lambda: QApplication.activeModalWidget().reject())
        assert SettingsDialog.ask(ledger, parent) is None
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert parent.findChildren(SettingsDialog) == []


def test_writing_sidecars_on_export_is_a_setting_kept(qtbot, ledger) -> None:
    dialog = SettingsDialog(ledger)
    qtbot.addWidget(dialog)
    assert not dialog.sidecar.isChecked()
    assert dialog.sidecar.accessibleName() == "Write a sidecar file on export"
    dialog.apply()
    assert ledger.settings.get(EXPORT_SIDECAR.key) is None  # the default is not stored
    dialog.sidecar.setChecked(True)
    dialog.apply()
    assert EXPORT_SIDECAR.get(ledger) is True
    again = SettingsDialog(ledger)
    qtbot.addWidget(again)
    assert again.sidecar.isChecked()


def test_a_sidecar_setting_stored_wrong_shows_unchecked(qtbot, ledger) -> None:
    ledger.settings.set(EXPORT_SIDECAR.key, "yes")
    dialog = SettingsDialog(ledger)
    qtbot.addWidget(dialog)
    assert not dialog.sidecar.isChecked()
