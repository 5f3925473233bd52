"""Submission: admitted jobs become attempts, each written to the ledger before it is sent."""

from __future__ import annotations

import logging
import statistics
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from core.batch import workflow_hash
from core.batch.prompt import extra_data, ledger_id, prompt_for
from core.comfy import PromptState, new_prompt_id
from core.controller.admission import AdmissionInput, admit, queue_target, requester_cap
from core.controller.causes import reason_for_error, rejection_error, unanswered_error
from core.controller.picture_uploads import JobPictures, PictureUploads
from core.controller.socket_outcomes import quiet_nodes
from core.errors import (
    ComfyProtocolError,
    ComfyRejected,
    ComfyUnreachable,
    DispatchPaused,
    IllegalTransition,
    TransientComfyError,
    UnknownRecord,
)
from core.inputs import picture_params
from core.job_state import AttemptResult, JobState, Reason
from core.ledger import RequesterCap
from core.ledger.attempt_error import AttemptError, ErrorKind
from core.ledger.settings import PAUSED
from core.placement.model_order import choice_text
from core.placement.refusal import refused_needs

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from core.comfy import ComfyClient, QueueSnapshot, SubmitResult
    from core.controller.fleet import Fleet, Waiting
    from core.controller.server_state import ServerState
    from core.inputs import PictureRef
    from core.ledger import JobRecord, Ledger
    from core.ledger.settings import ControllerConfig
    from core.placement.model_order import Choice
    from core.placement.needs import JobNeeds

    _Placed = tuple[Waiting, Choice]
    _Ready = tuple[JobRecord, Waiting, Choice, JobPictures]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Plan:
    """One attempt about to be written and sent."""

    job_id: str
    requester: str
    prompt_id: str
    prompt: dict[str, Any]
    extra: dict[str, Any]
    needs: JobNeeds
    because: str  # why it goes to this server (the attempt's placed_because)
    pictures: Mapping[str, PictureRef] = field(default_factory=dict)  # its input pictures
    refused: str = ""  # a picture the server refused: the attempt is written failed, unsent
    refused_input: str = ""  # that picture's NODE_ID.INPUT


class Dispatcher:
    """Admits pending jobs and submits them, one attempt (one fresh prompt_id) each."""

    def __init__(
        self,
        ledger: Ledger,
        client: ComfyClient,
        config: ControllerConfig,
        server: ServerState,
        fleet: Fleet,
        pictures: PictureUploads | None = None,
    ) -> None:
        self._ledger, self._client, self._config = ledger, client, config
        self._server, self._fleet = server, fleet
        self._last_served: str | None = None
        self._batches: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
        self._pictures = pictures or PictureUploads(ledger, client, server)

    async def dispatch(
        self,
        snapshot: QueueSnapshot,
        *,
        paused: bool,
        left: Sequence[str] = (),
    ) -> None:
        """Submit what admission allows now, given the server's queue ``snapshot`` and our
        prompts that have ``left`` it (not yet recorded as finished: they hold no room there).

        Each attempt written becomes the server's (``ServerState.ours``) before its POST: the
        event of it ending may come before its answer. The answers are held back
        (``ServerState.held``) for the caller to commit."""
        if not self._server.offer_fresh:
            return  # what it can run is not known yet: nothing goes there
        found = self._admission_input(len(snapshot), paused, left)
        if found is None:
            return
        inputs, lines = found
        placed = self._fleet.choose(self._server, admit(inputs), lines)
        cap = RequesterCap(requester_cap(inputs), tuple(left))
        if self._server.keeps_our_ids:
            await self._send_together(placed, cap)
        else:
            await self._send_one_by_one(placed, cap)

    async def _send_one_by_one(self, placed: list[_Placed], cap: RequesterCap) -> None:
        """Until the server has shown it keeps our prompt ids: write one, send it; a pause
        written meanwhile (by the artist, or because the server is unusable) refuses the next
        write, and the rest wait. A job's pictures are put on the server first (a server
        that cannot be reached for them leaves it and the rest pending)."""
        for job, choice in placed:
            try:
                found, failed = await self._with_pictures([(job, choice)])
                if failed is not None:
                    raise failed
                if not found:
                    continue  # another server is being sent its pictures
                ((record, _, _, pictures),) = found
                plan = self._plan(record, job.needs, choice, pictures)
                try:
                    written_now = self._write(plan, cap)
                except DispatchPaused:
                    return
            finally:
                self._fleet.done([job.job_id], self._server)
            self._last_served = plan.requester
            if written_now and plan.refused:
                self._picture_refused(plan)
            elif written_now:
                self._server.ours[plan.prompt_id] = plan.job_id
                await self._send(plan)

    async def _send_together(self, placed: list[_Placed], cap: RequesterCap) -> None:
        """Write every attempt of the burst in one transaction, then send each: every one is
        committed before any POST goes out. A request that fails does not keep the others
        unsent (written, they are sent); the first such error is raised afterwards.

        The burst's pictures are put on the server first, each once; when the server cannot
        be reached for one, that job and those after it stay pending."""
        if not placed:
            return
        try:
            ready, failed = await self._with_pictures(placed)
            plans = [
                self._plan(record, job.needs, choice, pictures)
                for record, job, choice, pictures in ready
            ]
            if not plans:
                if failed is not None:
                    raise failed
                return
            self._last_served = plans[-1].requester
            # Joined, without a savepoint a write: a submission refused (the job cancelled
            # since admission) has written nothing.
            with self._ledger.handle.joined():
                self._server.held.commit()  # what was held back so far: the same sync to disk
                try:
                    plans = [plan for plan in plans if self._write(plan, cap)]
                except DispatchPaused:  # read once in this transaction: the first refuses all
                    return
        finally:
            self._fleet.done([job.job_id for job, _ in placed], self._server)
        for plan in plans:
            if plan.refused:
                self._picture_refused(plan)
                continue
            self._server.ours[plan.prompt_id] = plan.job_id
            try:
                await self._send(plan)
            except (TransientComfyError, ComfyProtocolError) as exc:
                failed = failed or exc
        if failed is not None:
            raise failed

    async def _with_pictures(
        self, placed: list[_Placed]
    ) -> tuple[list[_Ready], TransientComfyError | ComfyProtocolError | None]:
        """Each placed job with its pictures on the server, up to the first that the server
        could not be asked for (that error: it and the jobs after it stay pending). A job with
        pictures is held for this server meanwhile (``Fleet.prepare``; the caller lets it go
        once its attempt is written); one another server holds is left to that one."""
        ready: list[_Ready] = []
        for job, choice in placed:
            record = self._ledger.job(job.job_id)
            if picture_params(record.params) and not self._may_prepare(record):
                continue
            try:
                pictures = await self._pictures.ready(record.params)
            except (TransientComfyError, ComfyProtocolError) as exc:
                log.info(
                    "%s: pictures of %s not uploaded (%s): it waits",
                    self._server.url,
                    job.job_id,
                    exc,
                )
                return ready, exc
            ready.append((record, job, choice, pictures))
        return ready, None

    def _may_prepare(self, job: JobRecord) -> bool:
        """Hold ``job`` for this server while its pictures go there, unless another server
        holds it, or took it since it was placed here (its attempt is written)."""
        if not self._fleet.prepare(job.id, self._server):
            return False
        taken = job.state != JobState.pending or any(
            a.n == job.attempt for a in self._ledger.attempts(job.id)
        )
        if taken:
            self._fleet.done([job.id], self._server)
        return not taken

    def _admission_input(
        self, server_count: int, paused: bool, left: Sequence[str]
    ) -> tuple[AdmissionInput, dict[str, list[Waiting]]] | None:
        durations = self._server.durations
        base = AdmissionInput(
            server_count=server_count,
            in_flight={},
            waiting={},
            global_cap=self._config.global_cap,
            per_requester_cap=self._config.per_requester_cap,
            paused=paused,
            last_served=self._last_served,
            job_seconds=statistics.median(durations) if durations else None,
            poll_interval=self._config.poll_active_s,
            deep_queue=self._config.deepens_queue,
            max_queue_depth=self._config.max_queue_depth,
            lone_requester_fills=self._config.lone_requester_fills,
        )
        target = self._server.queue_depth = queue_target(base)
        if paused or target <= server_count:
            return None  # no room: skip the ledger queries
        # The jobs this server can run, each requester's line, as deep as a lone requester may
        # go (`requester_cap`): admission takes turns among them.
        depth = max(target, self._config.per_requester_cap)
        lines = self._fleet.lines_for(self._server, depth)
        if not lines:
            return None
        in_flight = self._ledger.in_flight_by_requester(self._client.base_url, left)
        waiting = {requester: [w.job_id for w in line[:depth]] for requester, line in lines.items()}
        return replace(base, in_flight=in_flight, waiting=waiting), lines

    def _plan(
        self, job: JobRecord, needs: JobNeeds, choice: Choice, pictures: JobPictures
    ) -> _Plan:
        """The exact prompt ``job`` sends now, under a fresh prompt_id, its pictures named as
        this server named them (one refused: the prompt as stored, never sent)."""
        workflow, extra = self._batch_plan(job.batch)
        prompt_id = new_prompt_id()
        values = None if pictures.refused else pictures.values
        prompt = prompt_for(workflow, job.params, job.batch, prompt_id, values)
        because = choice_text(choice)
        return _Plan(
            job.id,
            job.requester,
            prompt_id,
            prompt,
            extra,
            needs,
            because,
            pictures.pictures,
            pictures.refused,
            pictures.refused_input,
        )

    def _picture_refused(self, plan: _Plan) -> None:
        """A picture of the job that the server refused (too large for it, a name it does not
        take) or whose kept copy is gone: the attempt fails, unsent, saying which picture."""
        node_id, _, input_name = plan.refused_input.partition(".")
        error = AttemptError(
            ErrorKind.validation,
            plan.refused,
            node_id=node_id or None,
            input_name=input_name or None,
        )
        self._server.hold(
            self._ledger.observe_failed, plan.prompt_id, Reason.validation_error, error
        )

    def _write(self, plan: _Plan, cap: RequesterCap) -> bool:
        """Record the attempt (committed, or part of the caller's transaction); False: the job
        was cancelled (or taken) since admission read it, or its requester reached ``cap``.

        Raises:
            DispatchPaused: dispatch was paused since admission read it; nothing is written.
        """
        try:
            self._ledger.submit_attempt(
                plan.job_id,
                plan.prompt_id,
                self._client.base_url,
                workflow_hash(plan.prompt),
                cap,
                placed_because=plan.because,
            )
        except DispatchPaused:
            raise
        except IllegalTransition:
            return False
        self._server.socket.expect(plan.prompt_id, quiet_nodes(plan.prompt))
        return True

    async def _send(self, plan: _Plan) -> None:
        """POST a written attempt and record what the answer says."""
        pid = plan.prompt_id
        self._server.posting.add(pid)
        try:
            result = await self._client.submit(plan.prompt, pid, extra_data=plan.extra)
        except ComfyRejected as exc:
            self._refused(plan, exc)
        except TransientComfyError as exc:
            await self._resolve_unknown(pid, exc)
        except ComfyProtocolError as exc:  # an answer, but not one we can read: unknown too
            self._server.hold(
                self._ledger.note_unknown_outcome, pid, Reason.server_error, unanswered_error(exc)
            )
            raise
        else:
            self._accepted(pid, result)
        finally:
            self._server.posting.discard(pid)

    def _refused(self, plan: _Plan, exc: ComfyRejected) -> None:
        """A refused prompt fails, but for a model file the server stopped listing (its files
        changed since its offer was read): its offer is read again before it gets more, and
        the job is placed again (on a server that lists the file, or it waits for one)."""
        pid, error = plan.prompt_id, rejection_error(exc)
        lacking = self._pictures.missing(plan.pictures, exc.node_errors)
        if lacking:
            self._picture_lost(plan, lacking, error)
            return
        if not refused_needs(exc.node_errors, plan.needs):
            self._server.hold(self._ledger.observe_failed, pid, Reason.validation_error, error)
            return
        log.info("%s refused %s for a model it does not list: placed again", self._server.url, pid)
        self._server.stale_offer()
        self._fleet.forget(plan.job_id)
        limit, retry = self._config.max_attempts, self._ledger.observe_retryable
        self._server.hold(retry, pid, AttemptResult.failed, Reason.model_missing, error, limit)

    def _picture_lost(self, plan: _Plan, lacking: list[str], error: AttemptError) -> None:
        """The server refused the prompt for input pictures of ours it no longer has (its input
        folder wiped while it ran): they are looked up (and uploaded) again before next use,
        and the job is placed again, as for a model it stopped listing."""
        log.info("%s lost input picture(s) of %s: placed again", self._server.url, plan.prompt_id)
        for sha256 in lacking:
            self._pictures.forget(sha256)
        self._fleet.forget(plan.job_id)
        limit, retry = self._config.max_attempts, self._ledger.observe_retryable
        pid = plan.prompt_id
        self._server.hold(retry, pid, AttemptResult.failed, Reason.picture_missing, error, limit)

    def _accepted(self, pid: str, result: SubmitResult) -> None:
        if result.prompt_id != pid:
            self._server_ignores_prompt_ids(pid, result.prompt_id)
            return
        self._server.accepted(pid, float(result.number))
        warning = None
        if result.node_errors:
            dropped = ", ".join(result.dropped_outputs) or "some outputs"
            problems = "; ".join(e.describe() for e in result.node_errors)
            warning = f"ComfyUI dropped output node(s) {dropped}: {problems}"
        self._server.hold(self._ledger.observe_queued, pid, result.number, warning)

    def _server_ignores_prompt_ids(self, pid: str, theirs: str) -> None:
        """A ComfyUI older than client-chosen prompt ids (2025-07) cannot be followed safely.

        The job fails with the reason and dispatch pauses: without our own ids, a lost answer
        could only be retried blindly, running prompts twice.
        """
        message = (
            f"this ComfyUI ignored Batchline's prompt id (it ran {theirs}): it predates "
            "client-chosen prompt ids (July 2025); update ComfyUI to use Batchline with it"
        )
        log.error(message)
        error = AttemptError(ErrorKind.unsupported_server, message)
        self._server.hold(self._ledger.observe_failed, pid, Reason.execution_error, error)
        PAUSED.set(self._ledger, True)  # at once (server_state.py says why)

    async def _resolve_unknown(self, pid: str, exc: TransientComfyError) -> None:
        """The POST got no usable answer: find out, never send blindly again.

        Only a failure to connect proves that nothing was sent: the job gets its next attempt
        at once. Any other failure leaves the outcome unknown (ComfyUI queues a prompt before
        it answers, so it may arrive later): the attempt stays ``submitting`` and the
        reconciler keeps looking its prompt_id up for the settle window.

        Raises:
            TransientComfyError: the server cannot be asked either; the attempt stays
                ``submitting`` and is resolved by the next reconcile.
        """
        if isinstance(exc, ComfyUnreachable):
            log.info("%s not sent (%s): a new attempt", pid, exc)
            error = AttemptError(ErrorKind.connection, str(exc))
            limit = self._config.max_attempts
            retry = self._ledger.observe_retryable
            self._server.hold(
                retry, pid, AttemptResult.failed, Reason.connection_error, error, limit
            )
            return
        unknown = unanswered_error(exc)
        self._server.hold(self._ledger.note_unknown_outcome, pid, reason_for_error(exc), unknown)
        lookup = await self._client.lookup(pid)
        if lookup.state != PromptState.unknown:
            self._server.seen(pid)
        if lookup.state == PromptState.pending:
            self._server.hold(self._ledger.observe_queued, pid)
        elif lookup.state == PromptState.running:
            self._server.hold(self._ledger.observe_running, pid)
        # unknown: the reconciler looks again each tick until the settle window closes;
        # finished: the next reconcile reads its history and downloads its outputs.

    def _batch_plan(self, batch_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """A batch's stored workflow and the ``extra_data`` its prompts carry (read once)."""
        if batch_id not in self._batches:
            batch = self._ledger.batch(batch_id)
            try:
                editor = self._ledger.presets.get(batch.preset).editor_workflow
            except UnknownRecord:  # the preset was removed since; the batch keeps its workflow
                editor = None
            self._batches[batch_id] = (
                self._ledger.workflow(batch.workflow_hash),
                extra_data(editor, str(ledger_id(self._ledger))),
            )
        return self._batches[batch_id]
