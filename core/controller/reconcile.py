"""Following our prompts on the server: moving attempts forward from /queue and /history."""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from typing import TYPE_CHECKING

from core.batch import workflow_hash
from core.batch.prompt import expected_outputs, prompt_for
from core.comfy import HistoryEntry
from core.controller.causes import failure_error, reason_for_failure
from core.controller.outputs import fetch_outputs, image_refs, output_name, output_refs
from core.controller.picture_uploads import PictureUploads
from core.errors import BatchFolderRefused, OutputFolderBlocked, TransientComfyError
from core.job_state import AttemptResult, Reason
from core.ledger.attempt_error import AttemptError, ErrorKind

if TYPE_CHECKING:
    from pathlib import Path

    from core.comfy import ComfyClient, ImageRef, QueueSnapshot
    from core.controller.server_state import ServerState
    from core.ledger import AttemptRecord, Ledger
    from core.ledger.settings import ControllerConfig

log = logging.getLogger(__name__)

CANCEL_RESEND_S = 2.0  # a targeted interrupt is repeated while the prompt still runs


class Reconciler:
    """Applies what the server says about each live attempt to the ledger, forward only.

    A prompt in neither queue nor history gets the grace period; then, if the pictures its
    own folder named are on the server, it succeeded (its history was wiped); else: lost
    across a server restart or outage (``ServerState.epoch`` moved since we last saw it) →
    ``lost``/server_lost, retried; removed from the queue by someone else while the server
    stayed up → cancelled/removed_elsewhere; its POST went unanswered → looked up until the
    settle window closes, then ``lost`` with the POST's cause, retried (the old prompt_id
    stays watched, see orphans.py); deleted by our own cancel → cancelled.
    """

    def __init__(
        self,
        ledger: Ledger,
        client: ComfyClient,
        config: ControllerConfig,
        output_dir: Path,
        server: ServerState,
        pictures: PictureUploads | None = None,
    ) -> None:
        self._ledger, self._client, self._config = ledger, client, config
        self._output_dir = output_dir
        self._server = server
        self._pictures = pictures or PictureUploads(ledger, client, server)
        self._missing_since: dict[str, float] = {}
        self._cancel_sent: dict[str, float] = {}
        self._succeeded: list[tuple[AttemptRecord, HistoryEntry]] = []  # this pass's, unrecorded
        self._refused: set[Path] = set()  # the batch folders said to be refused
        # (prompt, which written time) -> (monotonic reading, its age then): ``_age``
        self._ages: dict[tuple[str, str], tuple[float, float]] = {}

    async def follow(
        self, attempt: AttemptRecord, cancelling: bool, snapshot: QueueSnapshot
    ) -> None:
        """Bring one live attempt up to date with ``snapshot`` (and history when needed);
        ``cancelling``: its job is ``cancelling`` (as the tick read it)."""
        pid = attempt.prompt_id
        if attempt.fetching:  # its success is recorded: its pictures are still to be fetched
            await self._fetch(attempt)
            return
        seen = self._server.socket.take(pid)
        if seen is not None:  # finished since the snapshot, maybe: the socket is the newer news
            self._finish(attempt, cancelling, seen)
            return
        place = snapshot.place_of(pid)
        if cancelling and place is not None:
            await self._push_cancel(pid)
        if place is not None:
            self._server.seen(pid)
            self._missing_since.pop(pid, None)
            self._observe_place(attempt, snapshot, place)
            return
        entry = await self._client.history(pid)
        if entry is not None:
            self._finish(attempt, cancelling, entry)
        else:
            await self._vanished(attempt, cancelling)

    def _observe_place(self, attempt: AttemptRecord, snapshot: QueueSnapshot, place: str) -> None:
        pid = attempt.prompt_id
        if place == "pending":
            if attempt.result == AttemptResult.submitting:  # only news is written (hot path)
                number = next((i.number for i in snapshot.pending if i.prompt_id == pid), None)
                self._server.hold(self._ledger.observe_queued, pid, number)
            return
        if attempt.result != AttemptResult.running:
            self._server.hold(self._ledger.observe_running, pid)
        started = attempt.started_at or time.time()
        if not attempt.stalled and self._age(pid, "running", started) > self._config.stall_s:
            self._server.hold(self._ledger.set_stalled, pid, True)

    async def _push_cancel(self, pid: str) -> None:
        now = time.monotonic()
        if now - self._cancel_sent.get(pid, -CANCEL_RESEND_S) < CANCEL_RESEND_S:
            return
        self._cancel_sent[pid] = now
        await self._client.cancel(pid)

    def _finish(self, attempt: AttemptRecord, cancelling: bool, entry: HistoryEntry) -> None:
        pid = attempt.prompt_id
        self._forget(pid)
        times = (entry.started_at, entry.finished_at)
        if entry.succeeded:  # recorded with the pass's others: ``record_successes``
            self._succeeded.append((attempt, entry))
            return
        failure = entry.failure
        if failure is not None and failure.kind == "interrupted":
            reason = Reason.cancelled if cancelling else Reason.interrupted_elsewhere
            self._server.hold(self._ledger.observe_cancelled, pid, reason, times)
        elif failure is not None:
            reason, error = reason_for_failure(failure), failure_error(failure)
            lost = self._pictures.lost_in_run(self._ledger.job(attempt.job_id).params, failure)
            if lost:
                self._picture_lost(pid, lost, error)
                return
            self._server.hold(self._ledger.observe_failed, pid, reason, error, times)
        else:
            error = AttemptError(ErrorKind.execution, entry.status)
            self._server.hold(self._ledger.observe_failed, pid, Reason.execution_error, error)

    def _picture_lost(self, pid: str, lost: list[str], error: AttemptError) -> None:
        """The run found no file for input pictures of ours (the server's input folder wiped
        while the prompt waited in its queue): they are looked up (and uploaded) again before
        next use, and the job gets its next attempt, as for a prompt refused for them."""
        log.info("%s lost input picture(s) of %s as it ran: placed again", self._server.url, pid)
        for sha256 in lost:
            self._pictures.forget(sha256)
        limit, retry = self._config.max_attempts, self._ledger.observe_retryable
        self._server.hold(retry, pid, AttemptResult.failed, Reason.picture_missing, error, limit)

    async def record_successes(self, missed: list[TransientComfyError]) -> None:
        """Record the successes this pass found, with where they left their pictures, in one
        transaction with what was held so far (the POSTs' answers and starts come before
        them), at once (server_state.py says why); then fetch their pictures. A download the
        server cannot answer is added to ``missed``: the next tick fetches it again."""
        found, self._succeeded = self._succeeded, []
        if not found:
            return
        recorded: list[AttemptRecord] = []
        with self._ledger.handle.joined():
            self._server.held.commit()
            for attempt, entry in found:
                refs, note = output_refs(entry, self._config.max_pictures_per_job)
                times = (entry.started_at, entry.finished_at)
                if self._ledger.observe_succeeded(attempt.prompt_id, refs, note, times):
                    self._record_duration(attempt, entry)
                    recorded.append(replace(attempt, result=AttemptResult.succeeded, refs=refs))
        for attempt in recorded:
            try:
                await self._fetch(attempt)
            except TransientComfyError as exc:
                missed.append(exc)

    async def _fetch(self, attempt: AttemptRecord) -> None:
        """Fetch the pictures of a recorded success from where it left them on the server; if
        the server no longer has any of them, the job says so and goes on to its next attempt."""
        refs = attempt.refs or []
        job = self._ledger.job(attempt.job_id)  # its batch names the output folder
        try:
            fetched = await fetch_outputs(
                self._client,
                image_refs(refs),
                self._output_dir,
                job.batch,
                job.id,
                output_name(job.id, job.params),
            )
        except OutputFolderBlocked:
            self._server.output_full = True
            raise
        except BatchFolderRefused as exc:  # this batch's problem: the other jobs go on
            if exc.folder not in self._refused:  # one line a batch, not one a job
                self._refused.add(exc.folder)
                log.warning("batch %s: its finished jobs fail: %s", job.batch, exc)
            self._server.hold(self._ledger.observe_output_refused, attempt.prompt_id, str(exc))
            return
        self._server.output_full = False
        pid = attempt.prompt_id
        if refs and fetched.gone == len(refs):
            message = (
                f"it succeeded on {self._server.url}, but its {len(refs)} picture(s) were gone "
                "from the server's output folder"
            )
            log.warning("job %s: %s: a new attempt", job.id, message)
            limit = self._config.max_attempts
            self._server.hold(self._ledger.observe_outputs_gone, pid, message, limit)
            return
        self._server.hold(
            self._ledger.observe_fetched, pid, fetched.paths, "; ".join(fetched.warnings)
        )

    async def _vanished(self, attempt: AttemptRecord, cancelling: bool) -> None:
        pid = attempt.prompt_id
        if cancelling and (pid in self._cancel_sent or attempt.result == AttemptResult.submitting):
            self._forget(pid)
            self._server.hold(self._ledger.observe_cancelled, pid, Reason.cancelled)
            return
        first = self._missing_since.setdefault(pid, time.monotonic())
        if time.monotonic() - first < self._config.grace_s:
            return
        if attempt.result == AttemptResult.submitting and not self._settled(attempt):
            return  # its POST may still be on its way into the queue: keep looking
        restarted = not self._server.seen_since_restart(pid)
        pictures = await self._pictures_on_the_server(attempt)
        self._forget(pid)
        if pictures:  # it ran to the end: a restart (or a clear) took its history, not them
            log.info("%s is gone from the history, but its pictures are on the server", pid)
            found = HistoryEntry(pid, attempt.number, "success", True, images=tuple(pictures))
            self._succeeded.append((attempt, found))
            return
        self._give_up_on(attempt, restarted=restarted)

    async def _pictures_on_the_server(self, attempt: AttemptRecord) -> list[ImageRef]:
        """The pictures the attempt's SaveImage nodes wrote, found on the server by the names
        its own folder gave them before it ran (``expected_outputs``); none for an attempt
        whose prompt named no such folder (the hash of the prompt it sent says)."""
        job = self._ledger.job(attempt.job_id)
        workflow = self._ledger.workflow(self._ledger.batch(job.batch).workflow_hash)
        prompt = prompt_for(workflow, job.params, job.batch, attempt.prompt_id)
        if workflow_hash(prompt) != attempt.workflow_hash:
            return []
        found: list[ImageRef] = []
        for index in range(1, self._config.max_pictures_per_job + 1):
            expected = expected_outputs(prompt, index)
            there = [ref for ref in expected if await self._client.has_output(ref)]
            if not there:
                break
            found.extend(there)
        return found

    def _settled(self, attempt: AttemptRecord) -> bool:
        """Whether an unanswered submission has had its settle window (from when it was written)."""
        return self._age(attempt.prompt_id, "written", attempt.created_at) >= self._config.settle_s

    def _age(self, pid: str, since: str, written: float) -> float:
        """How long ago ``written`` (a wall-clock time the ledger holds for ``pid``'s ``since``)
        was: its age when this run first asked, then the monotonic clock's. A written time in
        the future (a ledger from a machine whose clock runs ahead) counts as now, and a wall
        clock stepped meanwhile moves no window."""
        now = time.monotonic()
        first, age = self._ages.setdefault((pid, since), (now, max(0.0, time.time() - written)))
        return age + now - first

    def _give_up_on(self, attempt: AttemptRecord, *, restarted: bool) -> None:
        pid, limit = attempt.prompt_id, self._config.max_attempts
        if attempt.result == AttemptResult.submitting:
            reason = Reason(attempt.reason) if attempt.reason else Reason.timeout
            log.info("%s not on the server after the settle window: a new attempt", pid)
            lost = self._ledger.observe_retryable
            self._server.hold(lost, pid, AttemptResult.lost, reason, attempt.error, limit)
        elif restarted or attempt.result == AttemptResult.running:
            log.info("%s vanished across a server restart or outage", pid)
            lost = self._ledger.observe_retryable
            self._server.hold(lost, pid, AttemptResult.lost, Reason.server_lost, None, limit)
        else:
            log.info("%s was removed from the queue by another client", pid)
            self._server.hold(self._ledger.observe_cancelled, pid, Reason.removed_elsewhere)

    def _forget(self, pid: str) -> None:
        self._missing_since.pop(pid, None)
        self._ages.pop((pid, "written"), None)
        self._ages.pop((pid, "running"), None)
        self._server.forget(pid)
        self._cancel_sent.pop(pid, None)

    def _record_duration(self, attempt: AttemptRecord, entry: HistoryEntry) -> None:
        start = entry.started_at or attempt.started_at or attempt.queued_at
        end = entry.finished_at or time.time()
        if start is not None and end >= start:
            self._server.durations.append(end - start)
        self._server.finished_at.append(time.time())
