"""Job details: attempts, the transition timeline, failure details, the live preview while it
runs, and output thumbnails."""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, QSize, Qt, QUrl, Slot
from PySide6.QtGui import QDesktopServices, QImage, QPixmap
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QListView,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from core.batch.batch_title import batch_title
from core.batch.varied import batch_colours, batch_input_names
from core.controller.placing_said import WaitingReasons
from core.errors import BatchlineError, UnknownRecord
from core.job_state import JobState
from core.pictures.pictures import job_outputs
from core.reason_texts import reason_text
from desktop.common.preview_reader import PreviewReader
from desktop.jobs.batch_names import batch_label
from desktop.jobs.job_outputs import PATH_ROLE, OutputsModel
from desktop.jobs.job_states import STATE_COLOURS, state_label
from desktop.jobs.job_table_model import values_text
from desktop.jobs.record_models import ATTEMPT_COLUMNS, TRANSITION_COLUMNS, RecordTableModel

if TYPE_CHECKING:
    from collections.abc import Mapping

    from core.ledger import JobRecord, Ledger
    from desktop.common.thumbnails import ThumbnailLoader

PREVIEW_SIZE = 160


class JobDetailsWidget(QWidget):
    """Everything the ledger knows about one job; refreshed when the job changes."""

    def __init__(self, ledger: Ledger, thumbnails: ThumbnailLoader, parent: Any = None) -> None:
        super().__init__(parent)
        self._ledger = ledger
        self._job: JobRecord | None = None
        self._placing = WaitingReasons(ledger)  # why a pending job waits, read per refresh
        self.output_dir: Path | None = None
        self.header = QLabel("Select a job to see its story.", self)
        self.header.setWordWrap(True)
        self.header.setAccessibleName("Job summary")
        self.attempts = RecordTableModel(ATTEMPT_COLUMNS, self)
        self.transitions = RecordTableModel(TRANSITION_COLUMNS, self)
        self.failure = QLabel(self)
        self.failure.setWordWrap(True)
        self.failure.setTextFormat(Qt.TextFormat.PlainText)  # ComfyUI's message, "<" included
        self.failure.setStyleSheet("color: #a4262c;")
        self.failure.setAccessibleName("Failure")
        self.preview = QLabel(self)
        self.preview.setAccessibleName("Live preview")
        self.preview.setToolTip("What the sampler has made so far (ComfyUI's preview)")
        self.preview.hide()
        self._preview_count: int | None = None
        self._previews = PreviewReader(ledger.folder, self)
        self._previews.ready.connect(self.preview_ready)
        self.outputs = OutputsModel(thumbnails, self)
        self.outputs_view = self._outputs_view()
        self.open_folder = QPushButton("Open output &folder", self)
        self.open_folder.setAccessibleName("Open output folder")
        self.open_folder.clicked.connect(self.on_open_folder)
        layout = QVBoxLayout(self)
        layout.addWidget(self.header)
        layout.addWidget(QLabel("Attempts", self))
        attempts = self._table(self.attempts, "Attempts")
        attempts.setMaximumHeight(110)
        layout.addWidget(attempts)
        layout.addWidget(QLabel("Timeline", self))
        timeline = self._table(self.transitions, "Transitions")
        # The cause is prose: it wraps within the pane instead of scrolling it sideways.
        timeline.horizontalHeader().setSectionResizeMode(
            len(TRANSITION_COLUMNS) - 1, QHeaderView.ResizeMode.Stretch
        )
        timeline.horizontalHeader().setMinimumSectionSize(48)
        timeline.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        timeline.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        layout.addWidget(timeline, 2)
        layout.addWidget(self.failure)
        layout.addWidget(self.preview)
        layout.addWidget(self.outputs_view)
        layout.addWidget(self.open_folder)

    def _table(self, model: RecordTableModel[Any], name: str) -> QTableView:
        view = QTableView(self)
        view.setModel(model)
        view.setAccessibleName(name)
        view.verticalHeader().setVisible(False)
        view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        view.horizontalHeader().setStretchLastSection(True)
        return view

    def _outputs_view(self) -> QListView:
        view = QListView(self)
        view.setAccessibleName("Job outputs")
        view.setViewMode(QListView.ViewMode.IconMode)
        view.setIconSize(QSize(128, 128))
        view.setFixedHeight(170)
        view.setModel(self.outputs)
        view.activated.connect(self.open_output)
        return view

    def job_id(self) -> str | None:
        return self._job.id if self._job else None

    def show_previews(self, counts: dict[str, int]) -> None:
        """The shown job's newest preview while it runs (``counts``: the controller's count of
        previews per running job; a new count means a new picture, read off the GUI thread)."""
        job = self.job_id()
        count = counts.get(job) if job else None
        if count is None:
            if job is not None:
                self._previews.forget(job)
            self._preview_count = None
            self.preview.hide()
            return
        if job is not None and count != self._preview_count:
            self._preview_count = count
            self._previews.request(job, count)

    @Slot(str, int, QImage)
    def preview_ready(self, job_id: str, count: int, image: QImage) -> None:
        if job_id != self.job_id() or count != self._preview_count:
            return  # another job chosen, or a newer preview asked, meanwhile
        size = PREVIEW_SIZE
        pixmap = QPixmap.fromImage(image)
        self.preview.setPixmap(pixmap.scaled(size, size, Qt.AspectRatioMode.KeepAspectRatio))
        self.preview.show()

    def show_job(self, job: JobRecord | None) -> None:
        if job is not None and job == self._job:
            return
        if job is None or self._job is None or job.id != self._job.id:
            if self._job is not None:
                self._previews.forget(self._job.id)
            self._preview_count = None
            self.preview.hide()
        self._job = job
        self.refresh()

    @Slot()
    def refresh(self) -> None:
        job = self._job
        if job is None:
            self._clear()
            return
        try:
            attempts = self._ledger.attempts(job.id)
            self.transitions.set_records(self._ledger.transitions(job.id))
        except UnknownRecord:
            self._clear()
            return
        self.attempts.set_records(attempts)
        self._placing.refresh()
        waiting = self._placing.of(job)
        names = batch_input_names(self._ledger, job.batch, job.params)
        title = batch_title(self._ledger, self._ledger.batch(job.batch))
        sent = any(attempt.n == job.attempt for attempt in attempts)
        try:
            colours = batch_colours(self._ledger, job.batch)
        except BatchlineError:
            colours = frozenset()
        self.header.setText(_summary(job, title, waiting, names, sent=sent, colours=colours))
        failed = [a.error.long(a.result) for a in attempts if a.error]
        self.failure.setText(failed[-1] if failed else "")
        self.failure.setVisible(bool(failed))
        self.outputs.set_paths(job_outputs(self._ledger, job.id, self.output_dir))

    def _clear(self) -> None:
        self.header.setText("Select a job to see its story.")
        self.attempts.set_records([])
        self.transitions.set_records([])
        self.failure.hide()
        self.outputs.set_paths([])

    @Slot(QModelIndex)
    def open_output(self, index: QModelIndex) -> None:
        QDesktopServices.openUrl(QUrl.fromLocalFile(index.data(PATH_ROLE)))

    @Slot()
    def on_open_folder(self) -> None:
        index = self.outputs_view.currentIndex()
        path = index.data(PATH_ROLE) if index.isValid() else None
        folder = Path(path).parent if path else self.output_dir
        if folder is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))


def _summary(
    job: JobRecord,
    batch_name: str | None,
    waiting: str = "",
    names: Mapping[str, str] | None = None,
    *,
    sent: bool = True,
    colours: frozenset[str] = frozenset(),
) -> str:
    """The job in three lines of rich text (what came from outside, escaped); a fourth says why
    a pending job waits when no server can run it. A pending job whose attempt was never sent
    (``sent``) says so rather than "attempt 1"."""
    colour = STATE_COLOURS[job.state]
    batch = html.escape(batch_label(job.batch, batch_name))
    reason = f" — {reason_text(job.reason)}" if job.reason else ""
    warning = f"<br>⚠ {html.escape(job.warning)}" if job.warning else ""
    warning += f"<br>Waiting: {html.escape(waiting)}" if waiting else ""
    return (
        f"<b>{job.id}</b> · {batch} · requester {html.escape(job.requester)} · priority "
        f"{job.priority}<br><span style='background:{colour}'>&nbsp;{state_label(job.state)}"
        f"&nbsp;</span>{reason} · {_attempt_text(job, sent)}<br>"
        f"{html.escape(values_text(job.params, names, colours))}{warning}"
    )


def _attempt_text(job: JobRecord, sent: bool) -> str:
    """ "attempt 2"; a pending job not sent yet: "not sent yet" (its first attempt) or
    "attempt 2 not sent yet" (a retry)."""
    if job.state is not JobState.pending or sent:
        return f"attempt {job.attempt}"
    return "not sent yet" if job.attempt <= 1 else f"attempt {job.attempt} not sent yet"
