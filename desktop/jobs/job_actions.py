"""The actions on selected jobs (toolbar, context menu, shortcuts) and when each is enabled."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QWidget

from core.errors import BatchlineError
from core.job_state import CANCELLABLE_STATES, RETRYABLE_STATES
from desktop.common.questions import confirm
from desktop.common.tasks import BackgroundTasks
from desktop.jobs.job_action_scope import (
    Scope,
    cancel_batch_scope,
    cancel_scope,
    cancel_waiting_scope,
    plain_text,
    retry_failed_scope,
    retry_scope,
    retry_smaller_scope,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from core.controller.status import ControllerStatus
    from core.job_state import JobState
    from core.ledger import JobRecord
    from desktop.common.controller_port import ControllerPort
    from desktop.jobs.job_action_scope import Counts

    SmallerChoice = tuple[float, list[str] | None]


class JobActions(QObject):
    """QActions acting on the selection through the controller.

    ``selection`` is a callable returning the selected jobs (the table view's); ``counts``
    how many jobs of a batch (None: of all) are in each state. Each action's text says what it
    would reach; one that would do nothing is disabled, its tooltip says why; one reaching many
    jobs asks first through ``confirm`` (a Yes/No question). ``choose_smaller``, when set,
    asks what retry smaller shrinks and by what factor (None: not now); unset, the defaults.

    Signals:
        failed(str): a command was refused; the message says why.
        retried_as(str): retry smaller created this job.
        recall_requested(str, bool): put this job's values (True: its seed alone) into the
            composer.
        again_requested(str): queue this job again with its seed and values, in a new batch.
    """

    failed = Signal(str)
    retried_as = Signal(str)
    recall_requested = Signal(str, bool)
    again_requested = Signal(str)

    def __init__(
        self,
        controller: ControllerPort,
        selection: Callable[[], list[JobRecord]],
        counts: Counts,
        parent: Any = None,
    ) -> None:
        super().__init__(parent)
        self._controller = controller
        self._selection = selection
        self._counts = counts
        self.confirm: Callable[[str], bool] = functools.partial(
            confirm, parent if isinstance(parent, QWidget) else None, "Batchline"
        )
        self.choose_smaller: Callable[[str], SmallerChoice | None] | None = None
        self._tasks = BackgroundTasks(self)
        self._tasks.failed.connect(lambda _name, message: self.failed.emit(message))
        self._tips: dict[QAction, str] = {}
        self.cancel = self._action("&Cancel", "Cancel the selected jobs", "Del", self.on_cancel)
        self.retry = self._action(
            "&Retry", "Retry failed or cancelled jobs", "Ctrl+R", self.on_retry
        )
        self.retry_smaller = self._action(
            "Retry &smaller…",
            "Retry an out-of-memory job smaller",
            "Ctrl+Shift+R",
            self.on_retry_smaller,
        )
        self.cancel_batch = self._action(
            "Cancel &batch",
            "Cancel every job of the selected job's batch",
            "Ctrl+Shift+Del",
            self.on_cancel_batch,
        )
        self.retry_failed = self._action(
            "Retry &failed of batch",
            "Retry every failed job of the selected job's batch",
            "Ctrl+Alt+R",
            self.on_retry_failed,
        )
        self.cancel_waiting = self._action(
            "Cancel all but &running",
            "Cancel every job that is not running yet",
            "Ctrl+Shift+K",
            self.on_cancel_waiting,
        )
        self.pause = self._action(
            "&Pause dispatch", "Stop sending jobs to ComfyUI", "Ctrl+P", self.on_pause
        )
        self.pause.setCheckable(True)
        self.send_to_composer = self._action(
            "Send to c&omposer",
            "Put the job's exact values, seed included, into the composer",
            "Ctrl+E",
            lambda: self._recall(seed_only=False),
        )
        self.use_seed = self._action(
            "Use its s&eed",
            "Put the job's seed alone into the composer",
            "Ctrl+Shift+E",
            lambda: self._recall(seed_only=True),
        )
        self.queue_again = self._action(
            "Queue &again with this seed",
            "Queue one job with exactly this job's values and seed, in a new batch",
            "Ctrl+Shift+Return",
            self._again,
        )
        self.update_enabled()

    def _action(self, text: str, tip: str, keys: str, slot: Callable[[], None]) -> QAction:
        action = QAction(text, self)
        action.setToolTip(f"{tip} ({keys})")
        action.setStatusTip(tip)
        action.setShortcut(QKeySequence(keys))
        action.triggered.connect(slot)
        self._tips[action] = tip
        return action

    def _show(self, action: QAction, scope: Scope) -> Scope:
        """The action's text and enabled state follow its scope (the toolbar's a short form,
        the whole text in its tooltip); the tooltip says why when it is disabled."""
        action.setText(scope.text)
        action.setIconText(scope.toolbar_text)
        action.setEnabled(scope.enabled)
        keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        tip = scope.tip or (plain_text(scope.text) if scope.short else self._tips[action])
        action.setToolTip(f"{tip} ({keys})")
        return scope

    def _confirmed(self, scope: Scope, *, always: bool = False) -> bool:
        """Small scopes go ahead; large ones (and ``always``) are confirmed (it cannot be
        undone)."""
        if not scope.enabled:
            return False
        if not scope.needs_confirming and not always:
            return True
        return self.confirm(f"{plain_text(scope.text)}? This cannot be undone.")

    def all(self) -> list[QAction]:
        return [
            self.cancel,
            self.retry,
            self.retry_smaller,
            self.cancel_batch,
            self.retry_failed,
            self.cancel_waiting,
            self.pause,
        ]

    def recall_actions(self) -> list[QAction]:
        """Back to the composer (a job's values, or its seed alone), or queued again."""
        return [self.send_to_composer, self.use_seed, self.queue_again]

    @Slot()
    def update_enabled(self) -> None:
        jobs = self._selection()
        for action in self.recall_actions():
            action.setEnabled(len(jobs) == 1)
        self._show(self.cancel, cancel_scope(jobs))
        self._show(self.retry, retry_scope(jobs))
        self._show(self.retry_smaller, retry_smaller_scope(jobs))
        self._show(self.cancel_batch, cancel_batch_scope(jobs, self._counts))
        self._show(self.retry_failed, retry_failed_scope(jobs, self._counts))
        self._show(self.cancel_waiting, cancel_waiting_scope(jobs, self._counts))

    def show_status(self, status: ControllerStatus) -> None:
        self.pause.setChecked(status.paused)
        self.pause.setText("Resume &dispatch" if status.paused else "&Pause dispatch")

    def _ids(self, states: tuple[JobState, ...]) -> list[str]:
        return [job.id for job in self._selection() if job.state in states]

    def _run(self, command: Callable[[], object]) -> None:
        try:
            command()
        except BatchlineError as exc:
            self.failed.emit(str(exc))
        self.update_enabled()

    @property
    def busy(self) -> bool:
        """Whether a command is still running (its transaction, then its report)."""
        return self._tasks.running > 0

    def _run_in_worker(self, command: Callable[[], object]) -> None:
        """Run a command over many jobs off the window's thread (one ledger transaction over
        thousands of jobs takes longer than a frame); a refusal is shown when it ends."""
        self._tasks.start(self._in_worker(command), "job action")

    async def _in_worker(self, command: Callable[[], object]) -> None:
        try:
            await self._controller.in_worker(command)
        except BatchlineError as exc:
            self.failed.emit(str(exc))
        self.update_enabled()

    @Slot()
    def on_cancel(self) -> None:
        ids = self._ids(CANCELLABLE_STATES)
        if self._confirmed(self._show(self.cancel, cancel_scope(self._selection()))):
            self._run_in_worker(lambda: self._controller.cancel(ids))

    @Slot()
    def on_retry(self) -> None:
        ids = self._ids(RETRYABLE_STATES)
        if self._confirmed(self._show(self.retry, retry_scope(self._selection()))):
            self._run_in_worker(lambda: self._controller.retry(ids))

    @Slot()
    def on_retry_smaller(self) -> None:
        jobs = self._selection()
        if not retry_smaller_scope(jobs).enabled:
            return
        job_id = jobs[0].id
        choice = self.choose_smaller(job_id) if self.choose_smaller else (0.75, None)
        if choice is not None:
            factor, shrink = choice
            self._run(
                lambda: self.retried_as.emit(self._controller.retry_smaller(job_id, factor, shrink))
            )

    @Slot()
    def on_cancel_batch(self) -> None:
        jobs = self._selection()
        scope = self._show(self.cancel_batch, cancel_batch_scope(jobs, self._counts))
        if self._confirmed(scope, always=True):  # a whole batch, however few are left
            for batch in sorted({job.batch for job in jobs}):
                self._run_in_worker(functools.partial(self._controller.cancel_batch, batch))

    @Slot()
    def on_retry_failed(self) -> None:
        jobs = self._selection()
        if self._confirmed(self._show(self.retry_failed, retry_failed_scope(jobs, self._counts))):
            for batch in sorted({job.batch for job in jobs}):
                self._run_in_worker(functools.partial(self._controller.retry_failed, batch))

    @Slot()
    def on_cancel_waiting(self) -> None:
        jobs = self._selection()
        scope = cancel_waiting_scope(jobs, self._counts)
        if self._confirmed(self._show(self.cancel_waiting, scope)):
            batches = sorted({job.batch for job in jobs})
            batch = batches[0] if len(batches) == 1 else None
            self._run_in_worker(lambda: self._controller.cancel_all_but_running(batch))

    def _recall(self, *, seed_only: bool) -> None:
        jobs = self._selection()
        if len(jobs) == 1:
            self.recall_requested.emit(jobs[0].id, seed_only)

    def _again(self) -> None:
        jobs = self._selection()
        if len(jobs) == 1:
            self.again_requested.emit(jobs[0].id)

    @Slot()
    def on_pause(self) -> None:
        if self._controller.status.paused:
            self._run(self._controller.resume)
        else:
            self._run(self._controller.pause)
        self.show_status(self._controller.status)
