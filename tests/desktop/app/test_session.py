"""Tests for desktop.app.session: when a session is the demo, and never over a ledger with jobs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.ledger import Ledger
from desktop.app.session import SessionOptions, server_configured, wants_demo

if TYPE_CHECKING:
    pass


def test_demo_only_when_nothing_was_configured(qloop, tmp_path) -> None:
    nothing = "http://127.0.0.1:9"  # where no ComfyUI answers
    options = SessionOptions(data_dir=tmp_path)

    async def decide() -> tuple[bool, bool, bool]:
        return (
            await wants_demo(options, False, nothing),
            await wants_demo(options, True, nothing),
            await wants_demo(SessionOptions(data_dir=tmp_path, demo=True), True, nothing),
        )

    assert qloop.run_until_complete(decide()) == (True, False, True)


def test_a_ledger_with_jobs_never_falls_back_to_the_demo(tmp_path) -> None:
    """Jobs made with the default server (e.g. from the CLI) count as a configured server."""
    from core.ledger import NewJob, PresetContent

    with Ledger(tmp_path / "home") as ledger:
        assert not server_configured(ledger)
        ledger.presets.add(
            "p", PresetContent("h", {"1": {"class_type": "EmptyImage", "inputs": {}}})
        )
        ledger.create_batch("p", [NewJob({})], requester="me")
        assert server_configured(ledger)
