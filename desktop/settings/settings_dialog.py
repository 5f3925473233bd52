"""The settings dialog: server and token, caps, output folder, attempts; each server's models."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from core.api.comfyui_send import origin_of
from core.comfy import server_address
from core.comfy.token_store import TOKEN_ENV, keyring_available, save_token
from core.errors import BatchlineError
from core.ledger.settings import (
    ALLOWED_ORIGINS,
    DEFAULT_SERVER,
    EXPORT_SIDECAR,
    NOTIFY_DESKTOP,
    WILDCARDS_FOLDER,
    Settings,
    server_list,
    wildcards_folder,
)
from desktop.settings.extension_row import ExtensionInstaller
from desktop.settings.server_check import check_servers_waiting
from desktop.settings.server_models import ModelRefresher, ServerModels, configured_servers

if TYPE_CHECKING:
    from core.ledger import Ledger

_OK_COLOUR = "#1e7b34"
_PROBLEM_COLOUR = "#a4262c"


class SettingsDialog(QDialog):
    """Edits the ledger's `Settings`; ``apply()`` saves and returns the new ones. ``commands``:
    the window's command object ("Refresh models" asks through it; None: no button)."""

    def __init__(
        self, ledger: Ledger, parent: Any = None, commands: ModelRefresher | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Batchline settings")
        self._ledger = ledger
        current = Settings.load(ledger)
        self._current = current
        self.server = _line(current.server or DEFAULT_SERVER, "ComfyUI address", self)
        self.server.setToolTip(
            "The address of your ComfyUI, e.g. http://127.0.0.1:8188. Several servers (one per "
            "GPU or machine): separate them with commas; Batchline feeds them all."
        )
        self.token = _line("", "Token", self)
        self.token.setEchoMode(QLineEdit.EchoMode.Password)
        self.token.setPlaceholderText("leave empty to keep; most local servers need none")
        self.keyring_note = QLabel(self)
        self.keyring_note.setWordWrap(True)
        if not keyring_available():
            self.keyring_note.setText(
                f"No system keyring found: the token cannot be remembered here. Set {TOKEN_ENV} "
                "in the environment before starting Batchline instead."
            )
            self.token.setEnabled(False)
        knobs = current.controller
        self.global_cap = _spin(knobs.global_cap, "Global cap", self)
        self.requester_cap = _spin(knobs.per_requester_cap, "Per-requester cap", self)
        self.max_attempts = _spin(knobs.max_attempts, "Automatic attempts", self)
        self.output = _line(str(current.output_folder), "Output folder", self)
        browse = QPushButton("Browse…", self)
        browse.setAccessibleName("Choose output folder")
        browse.clicked.connect(self.browse)
        row = QHBoxLayout()
        row.addWidget(self.output, 1)
        row.addWidget(browse)
        self.wildcards = _line(str(_wildcards_folder(ledger)), "Wildcards folder", self)
        self.wildcards.setToolTip(
            "Where __name__ in a prompt finds name.txt (one choice per line; subfolders: "
            "__folder/name__)"
        )
        browse_wildcards = QPushButton("Browse…", self)
        browse_wildcards.setAccessibleName("Choose wildcards folder")
        browse_wildcards.clicked.connect(self.browse_wildcards)
        self.sidecar = QCheckBox("Also write each picture's values as a .json file", self)
        self.sidecar.setAccessibleName("Write a sidecar file on export")
        self.sidecar.setToolTip(
            "Export starred: beside each copied picture, its prompt, seed, sampler, size and "
            "model as <name>.json (the picture itself always carries them)"
        )
        self.sidecar.setChecked(_sidecar_set(ledger))
        wildcards_row = QHBoxLayout()
        wildcards_row.addWidget(self.wildcards, 1)
        wildcards_row.addWidget(browse_wildcards)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.save_button = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.test_button = QPushButton("T&est", self)
        self.test_button.setAccessibleName("Test the address")
        self.test_button.setToolTip("Ask the address whether a ComfyUI answers, and its version")
        self.test_button.clicked.connect(self.test)
        self.server.textChanged.connect(self._address_edited)
        self._untested_ok = False  # the artist saw the address fail and may save anyway
        server_row = QHBoxLayout()
        server_row.addWidget(self.server, 1)
        server_row.addWidget(self.test_button)
        fields = QWidget(self)
        form = self._form = QFormLayout(fields)
        self.server_note = QLabel(self)
        self.server_note.setWordWrap(True)  # a long reason must not widen the dialog
        self.server_note.setTextFormat(Qt.TextFormat.PlainText)
        self.setMinimumWidth(480)
        form.addRow(_buddy("&Server", self.server), server_row)
        form.addRow("", self.server_note)
        form.addRow("&Token", self.token)
        form.addRow("", self.keyring_note)
        form.addRow("&Global cap", self.global_cap)
        form.addRow("&Per-requester cap", self.requester_cap)
        form.addRow("&Automatic attempts", self.max_attempts)
        form.addRow(_buddy("&Output folder", self.output), row)
        form.addRow(_buddy("&Wildcards folder", self.wildcards), wildcards_row)
        form.addRow("Exports", self.sidecar)
        self.notify = _notify_box(ledger, self)
        form.addRow("Notifications", self.notify)
        self.extension = ExtensionInstaller(fields)
        form.addRow("ComfyUI editor", self.extension)
        self.origins = _origins_field(ledger, self)
        form.addRow(_buddy("Other &pages", self.origins), self.origins)
        self.models = ServerModels(
            ledger, lambda: configured_servers(self.server.text()), commands, fields
        )
        form.addRow(self.models)
        self.server.editingFinished.connect(self.models.show_models)  # the servers named now
        # On a short screen (200 % scale) the fields scroll; the notes are never squeezed.
        self.fields = QScrollArea(self)
        self.fields.setWidgetResizable(True)
        self.fields.setFrameShape(QFrame.Shape.NoFrame)
        self.fields.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.fields.setWidget(fields)
        outer = self._outer = QVBoxLayout(self)
        outer.addWidget(self.fields, 1)
        outer.addWidget(buttons)
        self._buttons = buttons
        self._fit_height()

    def settings(self) -> Settings:
        """The settings as entered (an emptied field keeps what was shown)."""
        controller = replace(
            self._current.controller,
            global_cap=self.global_cap.value(),
            per_requester_cap=self.requester_cap.value(),
            max_attempts=self.max_attempts.value(),
        )
        return Settings(
            server=self.server.text().strip() or self._current.server or DEFAULT_SERVER,
            output_dir=Path(self.output.text().strip() or self._current.output_folder),
            controller=controller,
        )

    def apply(self) -> Settings:
        """Save the settings to the ledger and the token to the keyring."""
        settings = self.settings()
        settings.save(self._ledger)
        NOTIFY_DESKTOP.set(self._ledger, self.notify.isChecked())
        wildcards = self.wildcards.text().strip()
        if wildcards and Path(wildcards).expanduser() != _wildcards_folder(self._ledger):
            WILDCARDS_FOLDER.set(self._ledger, Path(wildcards).expanduser())  # else as it was
        if self.sidecar.isChecked() != _sidecar_set(self._ledger):
            EXPORT_SIDECAR.set(self._ledger, self.sidecar.isChecked())
        origins = [origin_of(text) for text in server_list(self.origins.text())]
        ALLOWED_ORIGINS.set(self._ledger, ", ".join(dict.fromkeys(o for o in origins if o)))
        if self.token.text():
            for server in server_list(settings.server):
                save_token(server_address(server), self.token.text())
        return settings

    def problem(self) -> str | None:
        """What is wrong with the entered servers or output folder (shown under the field),
        or None."""
        for server in server_list(self.server.text()):
            try:
                server_address(server)
            except ValueError as exc:  # says what is wrong, never repeating a password
                return f"{str(exc)[:1].upper()}{str(exc)[1:]}"
        folder = self.output.text().strip()
        if folder and not Path(folder).expanduser().is_absolute():
            return f"The output folder must be a full path (from / or ~), not {folder!r}"
        wildcards = self.wildcards.text().strip()
        if wildcards and not Path(wildcards).expanduser().is_absolute():
            return f"The wildcards folder must be a full path (from / or ~), not {wildcards!r}"
        for text in server_list(self.origins.text()):
            if origin_of(text) is None:
                return f"Other pages: {text!r} is not a web page's origin (scheme://host:port)"
        return None

    def accept(self) -> None:
        """Save when every address is well formed and answers; when one does not answer, say
        so and offer "Save anyway" (ComfyUI may simply not be started yet)."""
        if self._untested_ok or self.test():
            super().accept()
        elif self.problem() is None:
            self._untested_ok = True
            self.save_button.setText("Save &anyway")

    @Slot()
    def test(self) -> bool:
        """Check the addresses; the note says what each answered. True when all answered."""
        problem = self.problem()
        if problem is not None:
            self._say(problem, ok=False)
            return False
        self._say("Testing the address…", ok=True)
        self.test_button.setEnabled(False)
        try:
            checks = check_servers_waiting(server_list(self.server.text()), self.token.text())
        finally:
            self.test_button.setEnabled(True)
        reachable = all(check.reachable for check in checks)
        lines = [check.line() for check in checks]
        if not reachable:
            lines.append("Start ComfyUI or correct the address; jobs wait until it answers.")
        details = "\n".join(check.detail for check in checks if check.detail)
        self._say("\n".join(lines), ok=reachable, detail=details)
        return reachable

    def _say(self, text: str, ok: bool, detail: str = "") -> None:
        self.server_note.setStyleSheet(f"color: {_OK_COLOUR if ok else _PROBLEM_COLOUR};")
        self.server_note.setText(text)
        self.server_note.setToolTip(detail)  # the technical error, when there is one
        self._fit_height()

    def _fit_height(self) -> None:
        """Tall enough for every field and note (they wrap), within the screen; past it the
        fields scroll."""
        outer = self._outer
        margins = outer.contentsMargins()
        chrome = (
            margins.top() + margins.bottom() + outer.spacing() + self._buttons.sizeHint().height()
        )
        width = self.width() - margins.left() - margins.right()  # the fields' width, once shown
        needed = self._form.totalHeightForWidth(width) + chrome
        room = self.screen().availableGeometry().height()
        self.resize(self.width(), min(needed, room))

    @Slot()
    def _address_edited(self) -> None:
        self._untested_ok = False
        self.save_button.setText("OK")

    @Slot()
    def browse(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Output folder", self.output.text())
        if folder:
            self.output.setText(folder)

    @Slot()
    def browse_wildcards(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Wildcards folder", self.wildcards.text())
        if folder:
            self.wildcards.setText(folder)

    @classmethod
    def ask(
        cls, ledger: Ledger, parent: QWidget | None = None, commands: ModelRefresher | None = None
    ) -> Settings | None:
        """Show the dialog; the saved settings, or None when cancelled (tests patch this)."""
        dialog = cls(ledger, parent, commands)
        try:
            return dialog.apply() if dialog.exec() == QDialog.DialogCode.Accepted else None
        finally:  # gone with the ask: a dialog kept (its parent's child) read a ledger the
            dialog.hide()  # caller had closed when a field of it lost focus (found by the monkey)
            dialog.deleteLater()


def _wildcards_folder(ledger: Ledger) -> Path:
    """The folder set, else the default (a bad stored value shows the default, to correct)."""
    try:
        return wildcards_folder(ledger)
    except BatchlineError:
        return ledger.folder / "wildcards"


def _line(text: str, name: str, parent: QWidget) -> QLineEdit:
    edit = QLineEdit(text, parent)
    edit.setAccessibleName(name)
    return edit


def _spin(value: int, name: str, parent: QWidget) -> QSpinBox:
    box = QSpinBox(parent)
    box.setRange(1, 64)
    box.setValue(value)
    box.setAccessibleName(name)
    return box


def _buddy(text: str, widget: QWidget) -> QLabel:
    """A row's label for a field in a layout: its mnemonic focuses the field (a label
    without a buddy would show the ``&`` itself)."""
    label = QLabel(text, widget.parentWidget())
    label.setBuddy(widget)
    return label


def _sidecar_set(ledger: Ledger) -> bool:
    """Whether exports write sidecars; a value stored wrong reads as not (saving mends it)."""
    try:
        return EXPORT_SIDECAR.get(ledger)
    except BatchlineError:
        return False


def _origins_field(ledger: Ledger, parent: QWidget) -> QLineEdit:
    """The web pages besides the ComfyUI servers that may send workflows (`ALLOWED_ORIGINS`,
    `batchline origins`): a ComfyUI reached by another name, behind a proxy."""
    field = QLineEdit(ALLOWED_ORIGINS.get(ledger), parent)
    field.setPlaceholderText("e.g. http://gpu-box.lan:8188 (comma-separated)")
    field.setAccessibleName("Other pages that may send workflows")
    field.setToolTip(
        "Besides the ComfyUI servers above, the ComfyUI editors at these addresses may send "
        "workflows here (Send to Batchline): one reached by another name or through a proxy."
    )
    return field


def _notify_box(ledger: Ledger, parent: QWidget) -> QCheckBox:
    """Notifications on the desktop when a batch ends (`NOTIFY_DESKTOP`)."""
    box = QCheckBox("&Notify me when a batch ends or needs me", parent)
    box.setChecked(NOTIFY_DESKTOP.get(ledger))
    box.setAccessibleName("Notify when a batch ends")
    box.setToolTip(
        "A notification on the desktop, even with this window closed. A batch queued with "
        "--no-notify stays quiet; webhooks are sent either way."
    )
    return box
