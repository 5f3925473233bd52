"""The API's OpenAPI 3.1 document, served at ``GET /v1/openapi.json`` (without a token)."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from aiohttp import web

from core.api.bodies import MAX_FILE_NAME
from core.api.comfyui_send import MAX_SEND_BYTES
from core.batch.wildcard_spec import MODES
from core.inputs import MAX_PICTURE_BYTES
from core.job_state import AttemptResult, JobState
from core.ledger.attempt_error import AttemptError, ErrorKind
from core.notify.webhook_bodies import TEMPLATES
from core.pictures.search import DEFAULT_LIMIT as SEARCH_LIMIT
from core.pictures.search import MAX_LIMIT as SEARCH_MAX
from core.pictures.search import MAX_OFFSET as SEARCH_MAX_OFFSET
from core.presets import MAX_FILE_BYTES

Schema = dict[str, Any]

_NULLABLE_TEXT: Schema = {"type": ["string", "null"]}
_TIME: Schema = {"type": "string", "description": "ISO-8601 UTC"}
_NULLABLE_TIME: Schema = {"type": ["string", "null"], "description": "ISO-8601 UTC"}
_STATES = [state.value for state in JobState]
_REASON_TEXT: Schema = {"type": ["string", "null"], "description": "the reason in words"}
# An attempt's error holds texts, its kind and the list of node errors (all but kind optional).
_ERROR_TEXTS = [f.name for f in fields(AttemptError) if f.name not in ("kind", "node_errors")]


def _ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


def _object(properties: dict[str, Schema], *, closed: bool = True) -> Schema:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": not closed,
    }


def _json(schema: Schema, description: str, headers: Schema | None = None) -> Schema:
    content = {"application/json": {"schema": schema}}
    answer: Schema = {"description": description, "content": content}
    if headers:
        answer["headers"] = headers
    return answer


# A request HTTP itself cannot read (a Content-Length that is no number, a header line with no
# colon) is answered by the HTTP layer before Batchline sees it, in plain text (seen by the
# schema fuzzer: 400 "Invalid character in Content-Length").
_UNREADABLE_HTTP = {"text/plain": {"schema": {"type": "string"}}}
_ERRORS = {
    "400": {
        "description": "a bad request: the message names the field (in plain text: a request "
        "that is not well-formed HTTP, answered before it is read)",
        "content": {**_json(_ref("Error"), "")["content"], **_UNREADABLE_HTTP},
    },
    "401": _json(
        _ref("Error"),
        "no token, or an unknown one",
        {"WWW-Authenticate": {"schema": {"type": "string"}}},
    ),
    "408": _json(_ref("Error"), "the body did not all arrive in time"),
    "413": _json(_ref("Error"), "the body (or the batch) is larger than a limit"),
    "503": _json(
        _ref("Error"),
        "the API holds as many connections (or event streams, in all or of this token) as it "
        "takes, or the ledger was kept busy by another process: try again",
        {"Retry-After": {"schema": {"type": "string"}}},
    ),
}
_NOT_YOURS = {
    "403": _json(_ref("Error"), "another requester's job or batch"),
    "404": _json(_ref("Error"), "no such job, batch or preset"),
}
_JOB_PATH = [{"name": "job", "in": "path", "required": True, "schema": {"type": "string"}}]
_SECURED: list[dict[str, list[str]]] = [{"bearer": []}]


def _operation(summary: str, responses: Schema, **more: Any) -> Schema:
    return {"summary": summary, "security": _SECURED, "responses": {**responses, **_ERRORS}, **more}


SCHEMAS: dict[str, Schema] = {
    "Error": {
        "type": "object",
        "properties": {"error": {"type": "string"}, "message": {"type": "string"}},
        "required": ["error", "message"],
    },
    "Busy": _object(
        {
            "error": {"const": "busy"},
            "reason": {"enum": ["requester_quota", "backlog"]},
            "position": {
                "type": "integer",
                "description": "the last new job's place in line, were it queued now",
            },
            "estimated_wait_s": {
                "type": ["number", "null"],
                "description": "seconds until that job would be done (as `batchline queue`, "
                "`batchline jobs` and the window say); null before any job succeeded; "
                "Retry-After says when there is room",
            },
            "message": {"type": "string"},
        }
    ),
    "BatchRequest": {
        "type": "object",
        "description": "as `batchline queue`: one way of giving seeds at most",
        "properties": {
            "preset": {"type": "string", "minLength": 1},
            "count": {"type": "integer", "minimum": 1},
            "seed_start": {"type": "integer"},
            "seed_step": {"type": "integer"},
            "seeds": {"type": "array", "items": {"type": "integer"}},
            "random_seeds": {"type": "boolean"},
            "seed_inputs": {"type": "array", "items": {"type": "string"}},
            "set": {
                "type": "object",
                "description": "a value for every job, per input (NODE.INPUT); a picture for an "
                "input that takes one (LoadImage's image): the value POST /v1/pictures answered",
                "additionalProperties": _ref("AxisValue"),
            },
            "grid": {
                "type": "object",
                "description": "one axis per input (NODE.INPUT), any number of them, in order: "
                "the first is the sheet's columns, the second its rows, each further one its "
                "pages; a text input's values may hold wildcards",
                "additionalProperties": {
                    "type": "array",
                    "items": _ref("AxisValue"),
                    "minItems": 1,
                },
            },
            "zip": {
                "type": "array",
                "description": "groups of grid inputs that walk together (their value lists of "
                "one length): one job per value, not per pair",
                "items": {"type": "array", "items": {"type": "string"}, "minItems": 2},
            },
            "wildcards": {
                "type": "object",
                "description": "per text input (NODE.INPUT), how its wildcards ({a|b}, "
                "{2$$a|b|c}, __name__) become texts: random (the default for every text input, "
                "chosen by the job's seed: queued again, the same text) or all (one job per "
                "text: the input becomes an axis of the batch's grid)",
                "additionalProperties": {"enum": list(MODES)},
            },
            "priority": {"type": "integer"},
            "notify": {
                "type": "boolean",
                "description": "false: no desktop notification when the batch ends",
            },
            "webhook": {
                "type": "string",
                "format": "uri",
                "pattern": "^https?://",
                "description": "an http(s) address POSTed once when the batch ends (retried "
                "while it fails, a while)",
            },
            "webhook_template": {
                "enum": list(TEMPLATES),
                "description": "the webhook body: json (Batchline's own, the default), ntfy "
                "(its JSON publishing: the address is the topic's), discord ({content}), "
                "slack ({text})",
            },
        },
        "required": ["preset"],
        "additionalProperties": False,
    },
    "Value": {"type": ["string", "number", "boolean"]},
    "AxisValue": {
        "description": "a value, or a picture for an input that takes one (LoadImage's image): "
        "only one sent with POST /v1/pictures, as it answered it",
        "anyOf": [_ref("Value"), _ref("PictureValue")],
    },
    "PictureValue": _object({"picture": _ref("Picture")}),
    "Picture": _object(
        {
            "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
            "file": {"type": "string", "minLength": 1, "maxLength": MAX_FILE_NAME},
            "source": {
                "type": "string",
                "description": '"api:" and the file\'s name for a picture sent to the API; '
                "the path it was queued from for the artist's own",
            },
            "size": {"type": "integer", "minimum": 1, "description": "bytes"},
        }
    ),
    "BatchCreated": _object(
        {
            "batch": {"type": "string"},
            "name": {
                "type": "string",
                "description": 'its preset and what varies: "Portrait · 40 seeds"',
            },
            "jobs": {"type": "array", "items": {"type": "string"}},
            "placement": _ref("BatchPlacement"),
        }
    ),
    "BatchPlacement": _object(
        {
            "known": {
                "type": "boolean",
                "description": "whether the servers' offers are read (false: nothing is said)",
            },
            "runs": {
                "type": "boolean",
                "description": "every job can run on a connected server; false: some wait "
                "(queued all the same) until a server that has what they need is connected",
            },
            "text": {
                "type": ["string", "null"],
                "description": "per server what the batch lacks, in words: "
                '"127.0.0.1:8189 has everything; 127.0.0.1:8188 lacks x.safetensors"',
            },
            "unplaceable": {
                "type": "integer",
                "description": "jobs no connected server can run now",
            },
            "servers": {"type": "array", "items": _ref("ServerFit")},
        }
    ),
    "ServerFit": _object(
        {
            "server": {"type": "string"},
            "connected": {"type": "boolean"},
            "has_everything": {"type": "boolean"},
            "missing": {
                "type": "array",
                "items": _object(
                    {
                        "kind": {"enum": ["model_file", "node_class"]},
                        "name": {"type": "string"},
                        "folder": {"type": ["string", "null"]},
                    }
                ),
            },
        }
    ),
    "BatchCancelled": _object(
        {
            "batch": {"type": "string"},
            "jobs": {
                "type": "object",
                "additionalProperties": {"type": "string"},
                "description": "each job's new state, or why it was refused",
            },
        }
    ),
    "BatchRetried": _object(
        {
            "batch": {"type": "string"},
            "jobs": {
                "type": "object",
                "additionalProperties": {"type": ["integer", "string"]},
                "description": "each failed job's new attempt (pending again), or why it was "
                "refused",
            },
        }
    ),
    "Transition": _object(
        {
            "at": _TIME,
            "from": {"enum": _STATES},
            "to": {"enum": _STATES},
            "attempt": {"type": "integer"},
            "cause": {"type": "string"},
            "cause_text": {"type": "string", "description": "the cause, its reason in words"},
        }
    ),
    "AttemptError": {
        "type": "object",
        "properties": {
            "kind": {"enum": [kind.value for kind in ErrorKind]},
            **{name: {"type": "string"} for name in _ERROR_TEXTS},
            "node_errors": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["kind"],
        "additionalProperties": False,
    },
    "Attempt": _object(
        {
            "n": {"type": "integer"},
            "prompt_id": {"type": "string"},
            "server": {"type": "string"},
            "placed_because": {
                "type": ["string", "null"],
                "description": 'why it went to its server: "gpu-1: its loaded model"',
            },
            "number": {"type": ["number", "null"]},
            "result": {"enum": [result.value for result in AttemptResult]},
            "reason": _NULLABLE_TEXT,
            "reason_text": _REASON_TEXT,
            "error": {"oneOf": [_ref("AttemptError"), {"type": "null"}]},
            "error_text": {
                "type": ["string", "null"],
                "description": "the error in one line, as the window and the CLI say it",
            },
            "stalled": {"type": "boolean"},
            "workflow_hash": {"type": "string"},
            "created_at": _TIME,
            "queued_at": _NULLABLE_TIME,
            "started_at": _NULLABLE_TIME,
            "finished_at": _NULLABLE_TIME,
            "outputs": {"type": "array", "items": {"type": "string"}},
        }
    ),
    "Job": _object(
        {
            "id": {"type": "string"},
            "batch": {"type": "string"},
            "preset": {"type": "string"},
            "state": {"enum": _STATES},
            "reason": _NULLABLE_TEXT,
            "reason_text": _REASON_TEXT,
            "warning": _NULLABLE_TEXT,
            "waiting_for": {
                "type": ["string", "null"],
                "description": "why a pending job waits when no connected server can run it: "
                '"no server has sd_xl_refiner_1.0.safetensors"',
            },
            "requester": {"type": "string"},
            "priority": {"type": "integer"},
            "params": {"type": "object"},
            "pictures": {
                "type": "object",
                "description": "the pictures among params, per input (NODE.INPUT)",
                "additionalProperties": _object(
                    {
                        "file": {"type": "string"},
                        "source": {"type": "string"},
                        "sha256": {"type": "string"},
                        "size": {"type": "integer"},
                    }
                ),
            },
            "attempt": {"type": "integer"},
            "created_at": _TIME,
            "updated_at": _TIME,
            "attempts": {"type": "array", "items": _ref("Attempt")},
            "outputs": {"type": "array", "items": {"type": "string"}},
            "transitions": {"type": "array", "items": _ref("Transition")},
        }
    ),
    "PictureFound": _object(
        {
            "job": {"type": "string"},
            "batch": {"type": "string"},
            "index": {"type": "integer", "minimum": 0, "description": "among the job's pictures"},
            "url": {"type": "string", "description": "where to GET it: /v1/jobs/JOB/outputs/N"},
            "finished_at": {"type": "string", "description": "when its job finished (UTC)"},
        }
    ),
    "PictureList": _object(
        {
            "query": {"type": "string"},
            "pictures": {"type": "array", "items": _ref("PictureFound")},
            "next": {
                "type": ["integer", "null"],
                "description": "pass as `offset` for the next page; null on the last page "
                "(and when paging by `after`)",
            },
            "after": {
                "type": ["string", "null"],
                "description": "pass as `after` for the next page (pictures finishing "
                "meanwhile bring none of this page into it); null on the last page",
            },
        }
    ),
    "JobList": _object(
        {
            "jobs": {"type": "array", "items": _ref("Job")},
            "next": {
                "type": ["string", "null"],
                "description": "pass as `after` for the next page; null on the last page",
            },
        }
    ),
    "JobCancelled": _object({"job": {"type": "string"}, "state": {"enum": _STATES}}),
    "JobRetried": _object(
        {"job": {"type": "string"}, "state": {"const": "pending"}, "attempt": {"type": "integer"}}
    ),
    "Actor": _object(
        {
            "name": {"type": "string"},
            "via": {
                "enum": ["local", "api"],
                "description": "local: the artist on this computer; api: a token's requester",
            },
        }
    ),
    "Preset": _object(
        {
            "name": {"type": "string"},
            "workflow_hash": {"type": "string"},
            "source": {"type": "string"},
            "nodes": {"type": "integer"},
            "created_at": _TIME,
            "updated_at": _TIME,
            "stored_by": {**_ref("Actor"), "description": "its owner"},
            "changed_by": {**_ref("Actor"), "description": "who changed it last"},
        }
    ),
    "PresetList": _object({"presets": {"type": "array", "items": _ref("Preset")}}),
    "PresetAdded": _object(
        {
            "name": {"type": "string"},
            "outcome": {"enum": ["created", "replaced", "unchanged"]},
            "seed_inputs": {"type": "array", "items": {"type": "string"}},
            "notices": {"type": "array", "items": {"type": "string"}},
            "also_named": _NULLABLE_TEXT,
        }
    ),
    "WorkflowSent": _object(
        {
            "name": {"type": "string", "description": "the workflow's name in the editor"},
            "workflow": {"type": "object", "description": "the editor's graph (what Save writes)"},
            "prompt": {"type": "object", "description": "the API prompt the editor made of it"},
            "comfyui": {"type": "string", "description": "the ComfyUI page's origin"},
        }
    ),
    "WorkflowStored": _object(
        {
            "preset": {"type": "string", "description": "the name it is stored under"},
            "version": {"type": "integer", "minimum": 1},
            "outcome": {"enum": ["created", "updated", "unchanged"]},
            "message": {"type": "string"},
            "window": {"type": "boolean", "description": "an open window was asked to show it"},
        }
    ),
    "Counts": {
        "type": "object",
        "properties": {state: {"type": "integer"} for state in _STATES},
        "required": _STATES,
        "additionalProperties": False,
    },
    "Status": _object(
        {
            "requester": {"type": "string"},
            "paused": {"type": "boolean"},
            "controller": {
                "oneOf": [
                    {"type": "null"},
                    _object(
                        {
                            "running": {"type": "boolean"},
                            "connection": {
                                "type": "string",
                                "description": "to ComfyUI: connected, reconnecting, offline...",
                            },
                        }
                    ),
                ]
            },
            "limits": _object(
                {
                    "max_pending_per_requester": {"type": "integer"},
                    "max_backlog": {"type": "integer"},
                }
            ),
            "my_jobs": _ref("Counts"),
            "latest_change": {
                "type": "integer",
                "description": "the ledger's latest change: GET /v1/events?since= it",
            },
        }
    ),
}

PATHS: dict[str, Schema] = {
    "/v1/openapi.json": {
        "get": {
            "summary": "this document",
            "security": [],
            "responses": {"200": _json({"type": "object"}, "the OpenAPI document")},
        }
    },
    "/v1/status": {
        "get": _operation(
            "who is asking, whether the controller runs, the limits and your job counts",
            {"200": _json(_ref("Status"), "the status")},
        )
    },
    "/v1/batches": {
        "post": _operation(
            "queue a batch of a stored preset, or be refused whole (429) when it does not fit",
            {
                "201": _json(_ref("BatchCreated"), "the batch and its jobs, all pending"),
                "404": _json(_ref("Error"), "no such preset"),
                "429": _json(
                    _ref("Busy"),
                    "the requester's quota or the backlog is full: nothing was queued",
                    {"Retry-After": {"schema": {"type": "string"}, "required": True}},
                ),
            },
            requestBody={
                "required": True,
                "content": {"application/json": {"schema": _ref("BatchRequest")}},
            },
        )
    },
    "/v1/batches/{batch}/cancel": {
        "post": _operation(
            "cancel every unfinished job of one of your batches",
            {"200": _json(_ref("BatchCancelled"), "each job's outcome"), **_NOT_YOURS},
            parameters=[
                {"name": "batch", "in": "path", "required": True, "schema": {"type": "string"}}
            ],
        )
    },
    "/v1/batches/{batch}/retry": {
        "post": _operation(
            "retry every failed job of one of your batches (its cancelled ones stay so)",
            {"200": _json(_ref("BatchRetried"), "each failed job's outcome"), **_NOT_YOURS},
            parameters=[
                {"name": "batch", "in": "path", "required": True, "schema": {"type": "string"}}
            ],
        )
    },
    "/v1/jobs": {
        "get": _operation(
            "your jobs (of one batch, in some states)",
            {"200": _json(_ref("JobList"), "a page of the jobs, oldest first"), **_NOT_YOURS},
            parameters=[
                {"name": "batch", "in": "query", "schema": {"type": "string"}},
                {
                    "name": "state",
                    "in": "query",
                    "description": "one state, or several separated by commas",
                    "schema": {"type": "string"},
                },
                {
                    "name": "limit",
                    "in": "query",
                    "description": "jobs in one answer (default 1000)",
                    "schema": {"type": "integer", "minimum": 1, "maximum": 10000},
                },
                {
                    "name": "after",
                    "in": "query",
                    "description": "the `next` of the page before: the jobs created after it",
                    "schema": {"type": "string"},
                },
            ],
        )
    },
    "/v1/jobs/{job}": {
        "get": _operation(
            "one of your jobs, as `batchline show --json`",
            {"200": _json(_ref("Job"), "the job"), **_NOT_YOURS},
            parameters=_JOB_PATH,
        )
    },
    "/v1/jobs/{job}/cancel": {
        "post": _operation(
            "cancel one of your jobs",
            {
                "200": _json(_ref("JobCancelled"), "cancelled, or cancelling until ComfyUI says"),
                "409": _json(_ref("Error"), "the job has finished"),
                **_NOT_YOURS,
            },
            parameters=_JOB_PATH,
        )
    },
    "/v1/jobs/{job}/retry": {
        "post": _operation(
            "retry one of your failed or cancelled jobs",
            {
                "200": _json(_ref("JobRetried"), "pending again, as its next attempt"),
                "409": _json(_ref("Error"), "the job has not failed nor been cancelled"),
                **_NOT_YOURS,
            },
            parameters=_JOB_PATH,
        )
    },
    "/v1/jobs/{job}/outputs/{n}": {
        "get": _operation(
            "picture n (from 0) of one of your jobs",
            {
                "200": {
                    "description": "the picture (PNG, or what the workflow saved)",
                    "content": {"image/*": {"schema": {"type": "string", "format": "binary"}}},
                },
                **_NOT_YOURS,
            },
            parameters=[
                *_JOB_PATH,
                {"name": "n", "in": "path", "required": True, "schema": {"type": "integer"}},
            ],
        )
    },
    "/v1/presets": {
        "get": _operation(
            "the artist's presets and your own",
            {"200": _json(_ref("PresetList"), "the presets, by name")},
        ),
        "post": _operation(
            "store a workflow file (API JSON, a ComfyUI PNG or editor JSON) as a preset",
            {
                "200": _json(_ref("PresetAdded"), "replaced, or the same content already there"),
                "201": _json(_ref("PresetAdded"), "stored"),
                "403": _json(
                    _ref("Error"), "the name is another owner's preset (the artist's or not)"
                ),
            },
            parameters=[
                {"name": "name", "in": "query", "required": True, "schema": {"type": "string"}},
                {"name": "replace", "in": "query", "schema": {"type": "boolean"}},
                {
                    "name": "seed_input",
                    "in": "query",
                    "description": "NODE.INPUT to vary as the seed (repeatable)",
                    "schema": {"type": "array", "items": {"type": "string"}},
                    "style": "form",
                    "explode": True,
                },
            ],
            requestBody={
                "required": True,
                "description": f"the file, at most {MAX_FILE_BYTES} bytes",
                "content": {
                    "application/octet-stream": {"schema": {"type": "string", "format": "binary"}}
                },
            },
        ),
    },
    "/v1/comfyui/workflows": {
        "post": _operation(
            "store a workflow sent from ComfyUI's editor as your preset of its name (a new "
            "version of yours; another owner's name gets a free one, 'Fox portrait (2)'); the "
            "one route a web page may call: CORS for the ComfyUI servers in the settings and "
            "api.allowed_origins only",
            {
                "200": _json(_ref("WorkflowStored"), "a new version, or the same content"),
                "201": _json(_ref("WorkflowStored"), "stored as a new preset"),
                "403": _json(_ref("Error"), "the page (Origin) may not send here"),
                "413": _json(_ref("Error"), f"the body is larger than {MAX_SEND_BYTES} bytes"),
            },
            requestBody={
                "required": True,
                "content": {"application/json": {"schema": _ref("WorkflowSent")}},
            },
        ),
    },
    "/v1/pictures": {
        "get": _operation(
            "your pictures that a search finds, newest first, in the window's query language "
            '(words, "phrases", prompt: negative: seed:42 seed:*42 model: lora: preset: '
            "batch: server: value:cfg=7.5 is:starred date: after: before:, -negation)",
            {"200": _json(_ref("PictureList"), "a page of the pictures")},
            parameters=[
                {
                    "name": "q",
                    "in": "query",
                    "description": "the search (none: all your pictures); 400 names a part "
                    "that cannot be read",
                    "schema": {"type": "string"},
                },
                {
                    "name": "limit",
                    "in": "query",
                    "description": f"pictures in one answer (default {SEARCH_LIMIT})",
                    "schema": {"type": "integer", "minimum": 1, "maximum": SEARCH_MAX},
                },
                {
                    "name": "offset",
                    "in": "query",
                    "description": "the `next` of the page before",
                    "schema": {"type": "integer", "minimum": 0, "maximum": SEARCH_MAX_OFFSET},
                },
                {
                    "name": "after",
                    "in": "query",
                    "description": "the `after` of the page before (not with `offset`)",
                    "schema": {"type": "string", "pattern": r"^[0-9]{1,18}\.[0-9]{1,9}$"},
                },
            ],
        ),
        "post": _operation(
            "send a picture for a batch's picture inputs (the API reads no path on this "
            "computer): checked as a picture, kept by its content",
            {
                "201": _json(
                    _ref("PictureValue"),
                    'its value, for a batch\'s set or grid (source "api:" and its name)',
                ),
            },
            parameters=[
                {
                    "name": "file",
                    "in": "query",
                    "required": True,
                    "description": "the picture's file name (no folder): render_003.png",
                    "schema": {"type": "string", "minLength": 1, "maxLength": MAX_FILE_NAME},
                }
            ],
            requestBody={
                "required": True,
                "description": f"the picture's bytes, at most {MAX_PICTURE_BYTES} (a ComfyUI "
                "server's default upload limit); a file Pillow cannot read is refused (400)",
                "content": {
                    "application/octet-stream": {"schema": {"type": "string", "format": "binary"}},
                    "image/*": {"schema": {"type": "string", "format": "binary"}},
                },
            },
        ),
    },
    "/v1/events": {
        "get": _operation(
            "Server-Sent Events: one per change to one of your jobs (data: the job's JSON; id: "
            "the ledger's change number, for Last-Event-ID)",
            {
                "200": {
                    "description": "the stream",
                    "content": {"text/event-stream": {"schema": {"type": "string"}}},
                }
            },
            parameters=[
                {"name": "Last-Event-ID", "in": "header", "schema": {"type": "string"}},
                {"name": "since", "in": "query", "schema": {"type": "string"}},
            ],
        )
    },
}

DOCUMENT: Schema = {
    "openapi": "3.1.0",
    "info": {
        "title": "Batchline",
        "version": "1",
        "description": "Queue, follow, cancel and retry your own ComfyUI jobs through Batchline's "
        "controlled queue; refused with 429 and a wait estimate when it is full.",
    },
    "paths": PATHS,
    "components": {
        "schemas": SCHEMAS,
        "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
    },
}


async def openapi(request: web.Request) -> web.Response:
    return web.json_response(DOCUMENT)
