"""An attempt's error: to and from JSON (every shape older versions stored), and its two
renderings."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.job_state import AttemptResult, JobState, Reason
from core.ledger.attempt_error import SHORT_LIMIT, AttemptError, ErrorKind, current_errors
from core.ledger.records import AttemptRecord, JobRecord

_TEXT = st.text(min_size=1)
_OPTIONAL = st.none() | _TEXT
ERRORS = st.builds(
    AttemptError,
    kind=st.sampled_from(ErrorKind),
    message=st.text(),
    node_id=_OPTIONAL,
    node_type=_OPTIONAL,
    input_name=_OPTIONAL,
    exception_type=_OPTIONAL,
    error_type=_OPTIONAL,
    node_errors=st.lists(_TEXT, max_size=4).map(tuple),
    traceback=_OPTIONAL,
)


@given(ERRORS)
def test_an_error_comes_back_whole_from_its_json(error: AttemptError) -> None:
    stored = json.loads(json.dumps(error.to_json()))
    assert AttemptError.from_json(stored) == error
    assert stored["kind"] == error.kind.value


@given(ERRORS)
def test_the_short_rendering_is_one_bounded_line(error: AttemptError) -> None:
    short = error.short()
    assert "\n" not in short
    assert len(short) <= SHORT_LIMIT
    assert error.long().startswith(error.headline())


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
_STORED = st.fixed_dictionaries(
    {},
    optional={key: _JSON for key in ("kind", "message", "node_id", "node_errors", "extra")},
)


@given(_STORED | _JSON, st.none() | st.sampled_from(Reason) | st.text())
def test_whatever_was_stored_is_read_as_some_error(stored: object, reason: str | None) -> None:
    error = AttemptError.from_json(stored, reason)
    assert AttemptError.from_json(error.to_json()) == error
    assert error.short()


# The shapes versions before the typed error wrote, each with the reason stored beside it.
OLD_SHAPES = [
    pytest.param(  # causes.failure_detail: asdict(ExecutionFailure) without the empty fields
        {
            "kind": "oom",
            "node_id": "3",
            "node_type": "KSampler",
            "exception_type": "torch.OutOfMemoryError",
            "message": "Allocation on device",
            "extra": {"traceback": "Traceback ...\n"},
        },
        Reason.oom,
        AttemptError(
            ErrorKind.oom,
            "Allocation on device",
            node_id="3",
            node_type="KSampler",
            exception_type="torch.OutOfMemoryError",
            traceback="Traceback ...\n",
        ),
        id="execution-failure-oom",
    ),
    pytest.param(
        {"kind": "other", "node_id": "7", "message": "model not found"},
        Reason.execution_error,
        AttemptError(ErrorKind.execution, "model not found", node_id="7"),
        id="execution-failure-other",
    ),
    pytest.param(  # causes.rejection_detail
        {
            "kind": "validation",
            "message": "Prompt outputs failed validation; node 4 (ImageScale), ...",
            "error_type": "prompt_outputs_failed_validation",
            "node_id": "4",
            "node_type": "ImageScale",
            "input": "upscale_method",
            "node_errors": ["node 4 (ImageScale), input 'upscale_method': Value not in list"],
        },
        Reason.validation_error,
        AttemptError(
            ErrorKind.validation,
            "Prompt outputs failed validation; node 4 (ImageScale), ...",
            node_id="4",
            node_type="ImageScale",
            input_name="upscale_method",
            error_type="prompt_outputs_failed_validation",
            node_errors=("node 4 (ImageScale), input 'upscale_method': Value not in list",),
        ),
        id="rejection",
    ),
    pytest.param(  # note_unknown_outcome, kept when the attempt was given up as lost
        {"message": "POST /prompt: no answer in time", "outcome": "unknown"},
        Reason.timeout,
        AttemptError(ErrorKind.unknown_outcome, "POST /prompt: no answer in time"),
        id="unknown-outcome",
    ),
    pytest.param(  # dispatch: a connection refused
        {"message": "cannot connect"},
        Reason.connection_error,
        AttemptError(ErrorKind.connection, "cannot connect"),
        id="message-connection",
    ),
    pytest.param(  # dispatch: a server ignoring our prompt ids; reconcile: a status "error"
        {"message": "error"},
        Reason.execution_error,
        AttemptError(ErrorKind.execution, "error"),
        id="message-execution",
    ),
    pytest.param(  # observe_late_success: the newer attempt withdrawn
        {"message": "attempt 1, answered late, succeeded first"},
        Reason.superseded,
        AttemptError(ErrorKind.superseded, "attempt 1, answered late, succeeded first"),
        id="superseded",
    ),
    pytest.param(  # the keys the window once looked for; a node id stored as a number
        {"exception_message": "boom", "input_name": "seed", "node_id": 12},
        None,
        AttemptError(ErrorKind.execution, "boom", node_id="12", input_name="seed"),
        id="window-keys",
    ),
    pytest.param(
        "just text",
        "a_reason_of_a_later_version",
        AttemptError(ErrorKind.execution, "just text"),
        id="not-an-object",
    ),
    pytest.param(
        {"message": ["not", "text"], "node_errors": [1, None, "x"], "extra": "y"},
        Reason.oom,
        AttemptError(ErrorKind.oom, node_errors=("1", "x")),
        id="garbled",
    ),
]


@pytest.mark.parametrize(("stored", "reason", "expected"), OLD_SHAPES)
def test_every_old_shape_is_read(
    stored: object, reason: str | None, expected: AttemptError
) -> None:
    assert AttemptError.from_json(stored, reason) == expected


OOM = AttemptError(
    ErrorKind.oom,
    "Allocation on device\nmore",
    node_id="3",
    node_type="KSampler",
    exception_type="torch.OutOfMemoryError",
)


def test_an_out_of_memory_error_reads_as_such() -> None:
    assert OOM.short() == "out of memory in KSampler (node 3)"
    assert OOM.long() == (
        "out of memory in KSampler (node 3)\n"
        "Exception: torch.OutOfMemoryError\n"
        "Message: Allocation on device\nmore"
    )


def test_a_validation_error_names_node_and_input() -> None:
    error = AttemptError(
        ErrorKind.validation,
        "Value not in list: bogus",
        node_id="4",
        node_type="ImageScale",
        input_name="upscale_method",
        error_type="prompt_outputs_failed_validation",
        node_errors=("node 4 (ImageScale), input 'upscale_method': ...", "node 5 (X): ..."),
    )
    assert error.short() == (
        "validation error in ImageScale (node 4), input 'upscale_method': Value not in list: bogus"
    )
    assert error.long().split("\n")[2:] == [
        "ComfyUI's error: prompt_outputs_failed_validation",
        "Node error: node 4 (ImageScale), input 'upscale_method': ...",
        "Node error: node 5 (X): ...",
    ]


@pytest.mark.parametrize(
    ("error", "short"),
    [
        (AttemptError(ErrorKind.execution, "x" * 500, node_id="9"), None),
        (AttemptError(ErrorKind.connection, "cannot connect"), "not sent: cannot connect"),
        (AttemptError(ErrorKind.execution, node_type="Save"), "error in Save"),
        (AttemptError(ErrorKind.superseded, "attempt 1 first"), "withdrawn: attempt 1 first"),
    ],
)
def test_short_renderings(error: AttemptError, short: str | None) -> None:
    if short is None:
        assert error.short().startswith("error in node 9: xxx")
        assert error.short().endswith("...")
    else:
        assert error.short() == short


def test_an_unanswered_submission_tells_what_became_of_it() -> None:
    error = AttemptError(ErrorKind.unknown_outcome, "POST /prompt: no answer in time")
    assert error.long(AttemptResult.succeeded).split("\n") == [
        "no answer to its submission",
        "Message: POST /prompt: no answer in time",
        "It reached the server all the same and succeeded.",
    ]
    assert "It" not in error.long()  # without the result, nothing is said of it


def _job(job_id: str, attempt: int) -> JobRecord:
    return JobRecord(job_id, "b", "r", {}, 0, JobState.failed, "oom", None, attempt, 1, 0, 0, 1)


def _attempt(job_id: str, n: int, error: AttemptError | None) -> AttemptRecord:
    return AttemptRecord(
        job_id, n, f"p{n}", "s", None, AttemptResult.failed, None, error, "w", False, 0,
        None, None, None, [],
    )  # fmt: skip


def test_a_jobs_error_is_its_current_attempts() -> None:
    old, new = AttemptError(ErrorKind.connection), AttemptError(ErrorKind.oom)
    attempts = {
        "a": [_attempt("a", 1, old), _attempt("a", 2, new)],
        "b": [_attempt("b", 1, old), _attempt("b", 2, None)],
    }
    jobs = [_job("a", 2), _job("b", 2), _job("c", 1)]
    assert current_errors(jobs, attempts) == {"a": new}
