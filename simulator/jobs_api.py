"""The newer servers' jobs API (``/api/jobs``): job summaries over queue and history, each
finished job's outputs summed up as ComfyUI's ``comfy_execution/jobs.py`` does."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from simulator.http_layer import json_body, json_response

if TYPE_CHECKING:
    from aiohttp import web

    from simulator.http_layer import DualRoutes
    from simulator.state import QueueItem, ServerState


STATUSES = ("pending", "in_progress", "completed", "failed", "cancelled")
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


class BadQuery(ValueError):
    """A query parameter the jobs API refuses with 400."""


class JobsApi:
    """Lists, describes and cancels jobs, as ComfyUI 0.4+ ``comfy_execution/jobs.py`` does."""

    def __init__(self, state: ServerState) -> None:
        self.state = state

    def register(self, routes: DualRoutes) -> None:
        routes.add("GET", "/api/jobs", self.list_jobs)
        routes.add("GET", "/api/jobs/{job_id}", self.get_job)
        if self.state.config.has_jobs_cancel:
            routes.add("POST", "/api/jobs/cancel", self.cancel_many)
            routes.add("POST", "/api/jobs/{job_id}/cancel", self.cancel_one)

    # --- building jobs ------------------------------------------------------------------

    def _all_jobs(self) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
        queue = self.state.queue
        jobs: list[tuple[dict[str, Any], dict[str, Any] | None]] = []
        if queue.running is not None:
            jobs.append((self._queued_job(queue.running, "in_progress"), None))
        for item in sorted(queue.pending()):
            jobs.append((self._queued_job(item, "pending"), None))
        for prompt_id, entry in self.state.history.items():
            jobs.append((self._finished_job(prompt_id, entry), entry))
        return jobs

    def _queued_job(self, item: QueueItem, status: str) -> dict[str, Any]:
        """A queued job: no execution times, even while it runs."""
        job = {
            "id": item.prompt_id,
            "status": status,
            "priority": item.number,
            "create_time": item.extra_data.get("create_time"),
            "outputs_count": 0,
            "previewable_outputs_count": 0,
            "workflow_id": _workflow_id(item.extra_data),
        }
        return {k: v for k, v in job.items() if v is not None}

    def _finished_job(self, prompt_id: str, entry: dict[str, Any]) -> dict[str, Any]:
        number, _, _, extra, _ = entry["prompt"]
        messages = entry["status"]["messages"]
        events = {event: data for event, data in messages}
        count, previewable, preview = outputs_summary(entry["outputs"])
        job = {
            "id": prompt_id,
            "status": _final_status(entry),
            "priority": number,
            "create_time": extra.get("create_time"),
            "execution_start_time": events.get("execution_start", {}).get("timestamp"),
            "execution_end_time": messages[-1][1].get("timestamp") if messages else None,
            "execution_error": events.get("execution_error"),
            "outputs_count": count,
            "previewable_outputs_count": previewable,
            "preview_output": preview,
            "workflow_id": _workflow_id(extra),
        }
        return {k: v for k, v in job.items() if v is not None}

    # --- routes -------------------------------------------------------------------------

    async def list_jobs(self, request: web.Request) -> web.StreamResponse:
        try:
            jobs = self._select(dict(request.rel_url.query))
        except BadQuery as exc:
            return json_response({"error": str(exc)}, status=400)
        return json_response(jobs)

    def _select(self, query: dict[str, str]) -> dict[str, Any]:
        wanted = _statuses(query.get("status", ""))
        sort_by = query.get("sort_by", "created_at").lower()
        order = query.get("sort_order", "desc").lower()
        if sort_by not in ("created_at", "execution_duration"):
            raise BadQuery("sort_by must be 'created_at' or 'execution_duration'")
        if order not in ("asc", "desc"):
            raise BadQuery("sort_order must be 'asc' or 'desc'")
        limit = _int(query, "limit")
        if limit is not None and limit <= 0:
            raise BadQuery("limit must be a positive integer")
        offset = max(_int(query, "offset") or 0, 0)
        jobs = [job for job, _ in self._all_jobs() if job["status"] in wanted]
        if query.get("workflow_id"):
            jobs = [job for job in jobs if job.get("workflow_id") == query["workflow_id"]]
        jobs.sort(key=lambda job: _sort_key(job, sort_by), reverse=order == "desc")
        page = jobs[offset : offset + limit if limit is not None else None]
        has_more = offset + len(page) < len(jobs)
        pagination = {"offset": offset, "limit": limit, "total": len(jobs), "has_more": has_more}
        return {"jobs": page, "pagination": pagination}

    async def get_job(self, request: web.Request) -> web.StreamResponse:
        job_id = request.match_info["job_id"]
        for job, entry in self._all_jobs():
            if job["id"] == job_id:
                return json_response(self._detail(job, entry))
        return json_response({"error": "Job not found"}, status=404)

    def _detail(self, job: dict[str, Any], entry: dict[str, Any] | None) -> dict[str, Any]:
        if entry is not None:
            _, _, prompt, extra, _ = entry["prompt"]
            detail = {"outputs": entry["outputs"], "execution_status": entry["status"]}
            return {**job, **detail, "workflow": {"prompt": prompt, "extra_data": extra}}
        queue = self.state.queue
        item = queue.running if job["status"] == "in_progress" else queue.find_pending(job["id"])
        workflow = {"prompt": item.prompt, "extra_data": item.extra_data} if item else None
        return {**job, "workflow": workflow}

    async def cancel_one(self, request: web.Request) -> web.StreamResponse:
        return json_response({"cancelled": self.cancel(request.match_info["job_id"])})

    async def cancel_many(self, request: web.Request) -> web.StreamResponse:
        try:
            body = await json_body(request)
        except ValueError:
            return json_response({"error": "Request body must be valid JSON"}, status=400)
        ids = body.get("job_ids") if isinstance(body, dict) else None
        if not isinstance(ids, list):
            return json_response({"error": "job_ids must be a list"}, status=400)
        invalid = [i if isinstance(i, str) else repr(i) for i in ids if not _is_uuid(i)]
        if invalid:
            error = {"error": "job_ids contains invalid id(s)", "invalid_ids": invalid}
            return json_response(error, status=400)
        results = [self.cancel(job_id) for job_id in ids]
        return json_response({"cancelled": any(results)})

    def cancel(self, job_id: str) -> bool:
        """Dequeue a pending job, or interrupt it if it is running right now."""
        if self.state.queue.delete(job_id):
            return True
        running = self.state.queue.running
        if running is not None and running.prompt_id == job_id:
            self.state.interrupt(job_id)
            return True
        return False


def _final_status(entry: dict[str, Any]) -> str:
    status = entry["status"]
    if status["status_str"] == "success":
        return "completed"
    events = [event for event, _ in status["messages"]]
    return "cancelled" if "execution_interrupted" in events else "failed"


def _is_uuid(value: object) -> bool:
    return isinstance(value, str) and UUID.fullmatch(value) is not None


def _workflow_id(extra: dict[str, Any]) -> str | None:
    workflow = (extra.get("extra_pnginfo") or {}).get("workflow")
    value = workflow.get("id") if isinstance(workflow, dict) else None
    return value if isinstance(value, str) else None


def _statuses(param: str) -> set[str]:
    """The ``status`` filter: comma-separated, case-insensitive; empty means every status."""
    wanted = [part.strip().lower() for part in param.split(",") if part.strip()]
    invalid = [status for status in wanted if status not in STATUSES]
    if invalid:
        raise BadQuery(
            f"Invalid status value(s): {', '.join(invalid)}. Valid values: {', '.join(STATUSES)}"
        )
    return set(wanted or STATUSES)


def _int(query: dict[str, str], name: str) -> int | None:
    """An integer parameter (None when absent); a negative offset is later read as 0."""
    if name not in query:
        return None
    try:
        return int(query[name])
    except ValueError as exc:
        raise BadQuery(f"{name} must be an integer") from exc


def _sort_key(job: dict[str, Any], sort_by: str) -> float:
    if sort_by == "execution_duration":
        start, end = job.get("execution_start_time"), job.get("execution_end_time")
        return float(end - start) if start is not None and end is not None else 0.0
    return float(job.get("create_time") or 0)


# A finished job's output summary as ComfyUI's ``comfy_execution/jobs.py`` computes it.

PREVIEWABLE = frozenset({"images", "video", "audio", "3d", "text"})
TEXT_PREVIEW_MAX = 1024


def outputs_summary(outputs: dict[str, Any]) -> tuple[int, int, dict[str, Any] | None]:
    """(outputs_count, previewable_outputs_count, preview_output) of a history ``outputs``.

    Only dict items of list values count (``animated`` flags and text strings do not); the
    preview is the first previewable item of type ``output``, else the first previewable one,
    else the first text string.
    """
    count = previewable = 0
    saved = fallback = text = None
    for node_id, ui in outputs.items():
        for media, items in ui.items():
            if media == "animated" or not isinstance(items, list):
                continue
            for item in items:
                if not isinstance(item, dict):
                    if media == "text" and isinstance(item, str) and text is None:
                        text = _text_preview(item, node_id)
                    continue
                count += 1
                if media not in PREVIEWABLE:
                    continue
                previewable += 1
                enriched = {"mediaType": media, **item, "nodeId": node_id}
                if item.get("type") == "output" and saved is None:
                    saved = enriched
                elif fallback is None:
                    fallback = enriched
    return count, previewable, saved or fallback or text


def _text_preview(value: str, node_id: str) -> dict[str, Any]:
    preview: dict[str, Any] = {"content": value[:TEXT_PREVIEW_MAX]}
    if len(value) > TEXT_PREVIEW_MAX:
        preview["truncated"] = True
    return {**preview, "nodeId": node_id, "mediaType": "text"}
