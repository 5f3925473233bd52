"""The served API against its own OpenAPI document: schemathesis generates requests for every
operation (valid and not) and finds no 5xx and no answer the document does not describe.

An end-to-end story across modules (`batchline serve`, core/api and its OpenAPI document, the
ledger), kept in its own file rather than under one module's tests."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from core.ledger import Ledger
from core.presets import load_preset
from core.presets.storing import store_preset
from simulator import SimulatorConfig
from simulator.thread import SimulatorThread
from tests.cli.served_api import Served, serving
from tests.core.helpers import NOISE_WORKFLOW

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """One served API for the whole run: a preset and a token; small limits, so that large
    generated batches are refused rather than run."""
    folder = tmp_path_factory.mktemp("schema")
    simulator = SimulatorThread(
        SimulatorConfig(job_seconds=0.01, cpu_time_scale=0.0, output_dir=folder / "sim")
    )
    simulator.start()
    home = folder / "home"
    workflow = folder / "noise.json"
    workflow.write_text(json.dumps(NOISE_WORKFLOW), encoding="utf-8")
    with Ledger(home) as ledger:
        store_preset(ledger, "noise", load_preset(workflow))
        tokens = {"fuzz": ledger.tokens.create("fuzz")}
    limits = ("--max-pending-per-requester", "20", "--max-backlog", "40")
    try:
        with serving(home, simulator.url, *limits, tokens=tokens) as api:
            yield api
    finally:
        simulator.stop()


@pytest.fixture(scope="module")
def api_schema(served: Served) -> Any:
    return schemathesis.openapi.from_url(f"{served.url}/v1/openapi.json")


# The event stream never ends by itself: it is tested in test_api.py.
schema = schemathesis.pytest.from_fixture("api_schema").exclude(path="/v1/events")


@schema.parametrize()
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_server_error_and_every_answer_as_documented(case: Any, served: Served) -> None:
    case.call_and_validate(
        base_url=served.url,
        headers={"Authorization": f"Bearer {served.tokens['fuzz']}"},
        checks=CHECKS,
    )
