"""A hand-edited setting that is wrong stops `queue`, `run` and `serve` at their start with one
line naming the setting and its value: no traceback, no default in its place, no job written.

A story across the commands (`queue`, `run`, `serve`) and core/settings, kept in its own file
rather than under one module's tests."""

from __future__ import annotations

import pytest

from core.ledger import Ledger
from tests.cli.conftest import Cli
from tests.core.ledger.test_settings import store_raw

# (key, the JSON text written by hand)
HAND_EDITED = [
    ("controller", '"fast"'),
    ("controller", '["global_cap", 4]'),
    ("controller", '{"global_cap": 1e999}'),
    ("controller", '{"global_cap": 0}'),
    ("output_dir", "5"),
    ("output_dir", '"pictures"'),
    ("limits.max_backlog", '"many"'),
    ("limits.max_pending_per_requester", "1e400"),
    ("dispatch.paused", "{tru"),
]


@pytest.mark.parametrize("command", [["queue", "noise"], ["run", "--until-idle"], ["serve"]])
@pytest.mark.parametrize(("key", "text"), HAND_EDITED)
def test_a_bad_setting_is_one_line_naming_it(
    cli: Cli, noise: str, command: list[str], key: str, text: str
) -> None:
    with Ledger(cli.home) as ledger:
        store_raw(ledger, key, text)
    result = cli(*command)
    assert result.code == 2, result.err
    assert result.err.startswith(f"batchline: the setting {key} = "), result.err
    assert len(result.err.strip().splitlines()) == 1, result.err
    assert "Traceback" not in result.err
    with Ledger(cli.home) as ledger:
        assert ledger.jobs() == [], "nothing queued"
