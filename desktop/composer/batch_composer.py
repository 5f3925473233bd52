"""The batch composer: seeds, parameters, grid, requester and priority of a new batch."""

from __future__ import annotations

import contextlib
import getpass
import itertools
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QAction, QHideEvent, QKeySequence
from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from core.batch import BatchSpec
from core.batch.queueing import stored_preset
from core.catalogue import Catalogue
from core.controller.line_now import LineCache
from core.errors import BatchlineError, PresetError
from core.inputs.picture_store import PictureStore
from core.ledger.settings import server_list, wildcards_folder
from core.presets.availability import missing_classes
from desktop.composer.composer_form import ParameterForm
from desktop.composer.composer_memory import EDITED_TIP, ComposerMemory
from desktop.composer.composer_notice import admission_notice, queued_message, refusal_notice
from desktop.composer.composer_placement import (
    MAX_POINTS_SAID,
    composed_placement,
    confirm_placement,
    placement_note,
)
from desktop.composer.grid_editor import GridEditor
from desktop.composer.missing_panel import MissingFilesPanel
from desktop.composer.parameter_editors import editor_value
from desktop.composer.picture_values import with_pictures
from desktop.composer.seed_editor import SeedPlanEditor, integer_inputs
from desktop.composer.server_catalogues import ServerCatalogues
from desktop.composer.wheel_guard import guard_wheel
from desktop.composer.wildcard_preview import WildcardPanel

if TYPE_CHECKING:
    from collections.abc import Callable

    from core.controller.placing_said import BatchPlacement
    from core.controller.status import ControllerStatus
    from core.ledger import Ledger, PresetRecord
    from core.presets import Parameter, Preset
    from desktop.common.controller_port import ControllerPort

_ERROR_STYLE = "color: #a4262c;"
_NOTICE_STYLE = "color: #8a5300;"


class BatchComposerWidget(QWidget):
    """Builds a BatchSpec for the selected preset and queues it through the controller.

    Signals:
        batch_queued(str, int): a batch id and its number of jobs.
        message(str): what queueing did, for the window's notice (nothing in the form moves).
        failed(str): why it could not (the window shows it as an error notice).
    """

    batch_queued = Signal(str, int)
    message = Signal(str)
    failed = Signal(str)

    def __init__(self, ledger: Ledger, controller: ControllerPort, parent: Any = None) -> None:
        super().__init__(parent)
        self._ledger = ledger
        self._lines = LineCache(ledger)  # the wait note is asked with every status
        self._controller = controller
        self._preset_name: str | None = None
        self._preset: Preset | None = None
        self.title = QLabel("Choose or drop a preset", self)
        self.title.setStyleSheet("font-weight: bold; font-size: 12pt;")
        self.missing = MissingFilesPanel(self)  # what a server lacks, said at the top
        self.seeds = SeedPlanEditor(self)
        self.parameters_box = ParameterForm(self)
        self.wildcards = WildcardPanel(self)
        self.grid = GridEditor(self)
        self.grid.choices_of = _choices_by(weakref.ref(self))  # no cycle through the grid
        self.requester = QLineEdit(_os_user(), self)
        self.requester.setAccessibleName("Requester")
        self.priority = QSpinBox(self)
        self.priority.setRange(-1000, 1000)
        self.priority.setAccessibleName("Priority")
        self.notice = QLabel(self)  # the wait, kept up to date
        self.notice.setWordWrap(True)
        self.notice.setStyleSheet(_NOTICE_STYLE)
        self.notice.setAccessibleName("Wait estimate")
        self.where = QLabel(self)  # per server what the batch lacks, when one lacks something
        self.where.setWordWrap(True)
        self.where.setStyleSheet(_NOTICE_STYLE)
        self.where.setAccessibleName("Where the batch can run")
        self.where.setVisible(False)
        self.error_line = QLabel(self)  # why Queue refused (a picture file, a wildcard ...)
        self.error_line.setWordWrap(True)
        self.error_line.setStyleSheet(_ERROR_STYLE)
        self.error_line.setAccessibleName("Composer error")
        self.error_line.setVisible(False)
        self._servers_seen: tuple[tuple[str, str], ...] = ()
        self.queue_button = QPushButton("Queue", self)
        self.queue_button.setAccessibleName("Queue batch")
        self.memory = ComposerMemory(self, ledger, parent=self)
        self.reset_button = QPushButton("Reset to preset", self)
        self.reset_button.setToolTip("Back to the preset's own values")
        self.save_button = QPushButton("Save as preset…", self)
        self.save_button.setToolTip("Store the workflow with these values as a preset")
        self._build_layout()
        self.seeds.changed.connect(self.update_count)
        self.grid.changed.connect(self.update_count)
        self.wildcards.changed.connect(self.refresh_wildcards)
        self.parameters_box.edited.connect(self.refresh_wildcards)
        self.seeds.changed.connect(self.refresh_wildcards)
        self.parameters_box.picture_axis_wanted.connect(self.picture_axis)
        self.grid.rows_changed.connect(self._set_tab_order)
        self.grid.changed.connect(self._show_varied_pictures)
        self.requester.editingFinished.connect(self.check_room)  # its own quota
        self.priority.valueChanged.connect(self.check_room)  # higher goes ahead in line
        edits = (
            self.seeds.changed,
            self.seeds.edited,
            self.grid.changed,
            self.parameters_box.edited,
            self.wildcards.changed,
        )
        for signal in edits:
            signal.connect(self.memory.edited)
        self.memory.edited_changed.connect(self._show_edited)
        self.reset_button.clicked.connect(self.memory.reset)
        self.save_button.clicked.connect(self.memory.ask_save_as)
        self.queue_button.clicked.connect(self.queue)
        self.catalogues = ServerCatalogues(self)
        self.catalogues.ready.connect(self._catalogue_ready)
        self.parameters_box.edited.connect(self.check_models)
        self.missing.picked.connect(self.parameters_box.set_value)
        self.parameters_box.edited.connect(self.update_placement)
        controller.add_status_listener(self._status_changed)
        self.queue_action = QAction("Queue batch", self)
        self.queue_action.setShortcut(QKeySequence("Ctrl+Return"))
        self.queue_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.queue_action.triggered.connect(self.queue)
        self.addAction(self.queue_action)
        self.queue_button.setToolTip("Queue the batch (Ctrl+Enter)")
        self.setEnabled(False)

    def _build_layout(self) -> None:
        who = QGroupBox("Request", self)
        form = QFormLayout(who)
        form.addRow("&Requester", self.requester)
        form.addRow("&Priority", self.priority)
        inner = QWidget(self)
        column = QVBoxLayout(inner)
        for widget in (self.seeds, self.parameters_box, self.wildcards, self.grid, who):
            column.addWidget(widget)
        column.addStretch(1)
        scroll = self.form_scroll = QScrollArea(self)
        scroll.setAccessibleName("Composer fields")
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(inner)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.missing)
        buttons = QHBoxLayout()
        buttons.addWidget(self.reset_button)
        buttons.addWidget(self.save_button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.where)
        layout.addWidget(self.error_line)
        layout.addWidget(self.notice)
        layout.addWidget(self.queue_button)

    def hideEvent(self, event: QHideEvent) -> None:
        self.catalogues.stop()  # no fetch outlives the window
        super().hideEvent(event)

    # --- the preset ---------------------------------------------------------------------------

    @property
    def preset_name(self) -> str | None:
        return self._preset_name

    @Slot(str)
    def set_preset(self, name: str) -> None:
        """Compose for the preset, with what the artist last set for it."""
        try:
            preset = self._preset_of(self._ledger.presets.get(name))
        except BatchlineError as exc:
            self.show_error(str(exc))
            return
        with self.memory.quiet():
            self._show_preset(name, preset)
        self._show_edited(name, bool(self.values()))
        self.setEnabled(True)
        self.update_count()

    @Slot(str, bool)
    def _show_edited(self, name: str, edited: bool) -> None:
        """The title says when the preset's values were changed here and not saved."""
        if name != self._preset_name:
            return
        self.title.setText(f"{name} (edited)" if edited else name)
        self.title.setToolTip(EDITED_TIP if edited else "")

    def _preset_of(self, record: PresetRecord) -> Preset:
        """The preset with the choices and ranges of the server's catalogue once known (a
        workflow whose nodes that server lacks: the bundled catalogue's)."""
        known = self._known_catalogues()
        if known:
            with contextlib.suppress(PresetError):
                return stored_preset(record, known[0][1])
        return stored_preset(record)

    def _known_catalogues(self) -> list[tuple[str, Catalogue]]:
        """The catalogues fetched so far of the servers the controller drives, in their order."""
        return self.catalogues.catalogues(server_list(self._controller.status.server))

    @Slot()
    def _catalogue_ready(self) -> None:
        """Rebuild the fields with the server's lists (the state kept is shown again)."""
        if self._preset_name is not None and self._preset is not None:
            known = self._known_catalogues()
            if known and self._preset.catalogue_source != known[0][1].source:
                self.set_preset(self._preset_name)
        self.grid.refresh_choices()
        self.check_models()

    def _show_preset(self, name: str, preset: Preset) -> None:
        # No preset while the fields are rebuilt: a count asked in between (the seed list's
        # change) composed the new workflow with the old fields ("node 4 is not in the
        # workflow", found by the monkey); it is set again before the fields are restored.
        self._preset_name, self._preset = name, None
        self.title.setText(name)
        catalogue = self._catalogue()
        pictures = frozenset(catalogue.picture_inputs(preset.api_workflow))
        editable = [p for p in preset.parameters if not p.is_seed]
        names = {str(p.ref): p.label for p in preset.parameters}
        colours = frozenset(str(p.ref) for p in editable if p.colour)
        self.seeds.set_inputs(preset.seed_inputs, integer_inputs(editable), names, colours)
        self.parameters_box.set_parameters(editable, pictures)
        self.grid.set_parameters(editable, pictures)
        guard_wheel(self)
        self._set_tab_order()
        self._preset = preset
        self.check_models()
        self.memory.restore(name)
        self.refresh_wildcards()

    def _catalogue(self) -> Catalogue:
        """The first server's catalogue once fetched, else the bundled one."""
        known = self._known_catalogues()
        return known[0][1] if known else Catalogue.bundled()

    def server_choices(self, parameter: Parameter) -> tuple[Any, ...]:
        """The values the connected servers list for a list input (each once, in the first
        server's order), else those the preset's catalogue lists."""
        offered: dict[Any, None] = {}
        for _address, catalogue in self._known_catalogues():
            cls = catalogue.get(parameter.class_type)
            spec = cls.input(parameter.ref.input) if cls is not None else None
            if spec is not None:
                offered.update(dict.fromkeys(spec.choices))
        return tuple(offered) or tuple(parameter.choices)

    def wildcards_folder(self) -> Path | None:
        try:
            return wildcards_folder(self._ledger)
        except BatchlineError:
            return None  # a bad setting: `__name__` files are refused, named, by the preview

    @Slot()
    def refresh_wildcards(self) -> None:
        """Show the count and examples of each text input with wildcards."""
        texts: dict[str, tuple[Parameter, str]] = {}
        for parameter, editor in self.parameters_box.editors:
            if isinstance(parameter.value, str) and not parameter.choices:
                texts[str(parameter.ref)] = (parameter, str(editor_value(editor, parameter)))
        plan = self.seeds.plan()
        seed = plan.values[0] if plan.values else plan.start
        self.wildcards.show_texts(texts, self.wildcards_folder(), seed)
        self.update_count()

    @Slot(str, list)
    def picture_axis(self, ref: str, paths: list[str]) -> None:
        """Pictures dropped on a picture field: an axis, one job per picture."""
        self.grid.picture_axis(ref).take_dropped([Path(p) for p in paths])

    @Slot()
    def _show_varied_pictures(self) -> None:
        """A picture field an axis varies says so."""
        captions = {
            row.input.currentData(): row.caption.text().split(" (")[0]
            for row in self.grid.used_rows()
        }
        for ref, field in self.parameters_box.picture_fields.items():
            field.set_varied(captions.get(ref, ""))

    @Slot()
    def _set_tab_order(self) -> None:
        """Tab walks the form top to bottom: editors made for this preset included."""
        grid = [self.grid, *(row.input for row in self.grid.rows), self.grid.add_button]
        chain: list[QWidget] = [
            self.reset_button,
            self.save_button,
            *self.seeds.focus_chain(),
            *(editor for _parameter, editor in self.parameters_box.editors),
            *grid,
            self.requester,
            self.priority,
            self.queue_button,
        ]
        for before, after in itertools.pairwise(chain):
            QWidget.setTabOrder(before, after)

    # --- the spec -------------------------------------------------------------------------------

    def values(self) -> dict[str, Any]:
        """The parameters the artist changed (swept ones included), keyed `NODE_ID.INPUT`."""
        return self.parameters_box.changed_values()

    def overrides(self) -> dict[str, Any]:
        """The changed parameters neither the grid nor the seeds vary."""
        taken = {axis.input for axis in self.grid.axes()} | set(self.seeds.varied_refs())
        return {key: value for key, value in self.values().items() if key not in taken}

    def pictures(self) -> dict[str, str]:
        """The pictures chosen for picture inputs no axis varies (``NODE.INPUT -> path``)."""
        taken = {axis.input for axis in self.grid.axes()}
        return {k: v for k, v in self.parameters_box.pictures().items() if k not in taken}

    def state(self) -> dict[str, Any]:
        """Everything the artist set for this preset, as JSON."""
        return {
            "seeds": self.seeds.state(),
            "values": self.values(),
            "grid": self.grid.state(),
            "pictures": self.parameters_box.pictures(),
            "wildcards": self.wildcards.modes(),
        }

    def restore(self, state: dict[str, Any]) -> None:
        """Show a state `state()` returned for the same preset."""
        self.seeds.restore(state.get("seeds") or {})
        self.parameters_box.show_values(state.get("values") or {})
        self.parameters_box.show_pictures(state.get("pictures") or {})
        self.wildcards.set_modes(state.get("wildcards") or {})
        self.grid.restore(state.get("grid") or {})

    def spec(self) -> BatchSpec:
        """The batch as composed; picture values are their files' paths until `queued_spec`."""
        return BatchSpec(
            seeds=self.seeds.plan(),
            overrides=self.overrides(),
            grid=self.grid.axes(),
            zips=self.grid.zips(),
            wildcards=self.wildcards.modes(),
            requester=self.requester_name(),
            priority=self.priority.value(),
        )

    def queued_spec(self) -> BatchSpec:
        """The spec with each picture kept in the picture store and made a job value.

        Raises:
            InputError: a picture file is refused (named).
        """
        store = PictureStore.of(self._ledger)
        return with_pictures(self.spec(), store, self.pictures(), self.grid.picture_inputs())

    def requester_name(self) -> str:
        return self.requester.text().strip() or _os_user()

    def job_count(self) -> int:
        return self.seeds.job_count() * self.grid.point_count() * self.wildcards.job_factor()

    @Slot()
    def update_count(self) -> None:
        self.error_line.setVisible(False)
        count = self.job_count()
        self.queue_button.setText(f"Queue {count} job{'s' if count != 1 else ''}")
        self.queue_button.setEnabled(count > 0 and self._preset is not None)
        self.check_room()
        self.update_placement()

    @Slot()
    def update_placement(self) -> None:
        """Say per server what the batch lacks, when a server lacks something (every server
        the controller drives; worked out at Queue only for a very large batch)."""
        points = self.grid.point_count()
        count = self._preset is not None and self.job_count() > 0 and points <= MAX_POINTS_SAID
        self.where.setText(placement_note(self._placement()) if count else "")
        self._show_where()

    def _show_where(self) -> None:
        """The sentence on where the batch can run, unless the top already says it all: the
        fields' values are its only files while no axis varies one."""
        said_above = self.missing.isVisibleTo(self) and not self.grid.axes()
        self.where.setVisible(bool(self.where.text()) and not said_above)

    @Slot()
    def check_room(self) -> None:
        """Why Queue would refuse the new jobs now (past their requester's quota or the
        backlog's limit), if it would; else their place in line and wait, as ComfyUI's queue
        stands now (`core.controller.line_now`). Asked when the count, the requester or the priority
        changes, and with each status."""
        status, count, requester = self._controller.status, self.job_count(), self.requester_name()
        refused = refusal_notice(self._ledger, status, requester, count)
        text = refused or admission_notice(
            self._lines, status, requester, count, self.priority.value()
        )
        self.notice.setText(text)
        self.notice.setStyleSheet(_ERROR_STYLE if refused else _NOTICE_STYLE)
        self.notice.setVisible(bool(text))

    def _status_changed(self, status: ControllerStatus) -> None:
        self.catalogues.want(server_list(status.server))
        if self._preset is not None:
            self.check_room()
            servers = tuple((s.server, s.connection.value) for s in status.servers)
            if servers != self._servers_seen:  # one connected or gone: the fit may change
                self._servers_seen = servers
                self.update_placement()

    @Slot()
    def check_models(self) -> None:
        """Mark the fields whose value a server does not list, and say at the top what each
        server lacks (asked as the workflow arrives, with each edit and each catalogue)."""
        known = self._known_catalogues()
        unlisted = self.parameters_box.mark_unlisted(known)
        workflow = self._preset.api_workflow if self._preset is not None else {}
        self.missing.show_missing(
            unlisted, missing_classes(workflow, known), [address for address, _ in known]
        )
        self._show_where()

    def _placement(self) -> BatchPlacement | None:
        if self._preset is None:
            return None
        jobs = self.seeds.job_count() * self.wildcards.job_factor()
        skip = self.grid.picture_inputs() | set(self.parameters_box.picture_fields)
        return composed_placement(self._ledger, self._preset, self.spec(), jobs, frozenset(skip))

    @Slot()
    def queue(self) -> None:
        """Queue at once when the servers can run every job (or nothing is known against it);
        else ask once, naming what is missing."""
        if self._preset_name is None or not self.queue_button.isEnabled():
            return
        self.check_models()
        placement = self._placement()
        if placement is not None and not placement.runs and not confirm_placement(self, placement):
            return
        try:
            batch, job_ids = self._controller.queue_batch(
                self._preset_name, self.queued_spec(), self.seeds.varied_refs()
            )
        except BatchlineError as exc:
            self.show_error(str(exc))
            return
        called = f"“{batch.name}”" if batch.name else batch.id  # its title, given at queueing
        self.message.emit(queued_message(len(job_ids), called, self._controller.status))
        self.batch_queued.emit(batch.id, len(job_ids))

    def show_error(self, text: str) -> None:
        """Say why under the form (the composer's error line) and to the window."""
        self.error_line.setText(text)
        self.error_line.setVisible(True)
        self.failed.emit(text)


def _choices_by(
    composer: weakref.ref[BatchComposerWidget],
) -> Callable[[Parameter], tuple[Any, ...]]:
    def choices(parameter: Parameter) -> tuple[Any, ...]:
        alive = composer()
        return alive.server_choices(parameter) if alive is not None else parameter.choices

    return choices


def _os_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "artist"
