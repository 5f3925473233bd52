"""Tokens stay out of every log; server addresses, priorities and intervals are checked up front."""

from __future__ import annotations

import logging

import pytest

from core.comfy import RedactAuthorization, server_address
from simulator.thread import SimulatorThread
from tests.cli.conftest import Cli, batchline

TOKEN = "s3cret"  # the token the `secured` simulator asks for


def test_a_verbose_run_logs_the_handshake_without_the_token(
    cli: Cli, noise: str, secured: SimulatorThread, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BATCHLINE_TOKEN", TOKEN)
    (job_id,) = cli("queue", "noise").out.split()
    args = ("-v", "--server", secured.url, "run", "--until-idle", "--poll-interval", "0.05")
    out, err = batchline(cli.home, *args).communicate(timeout=60)
    assert f"{job_id} succeeded" in out
    assert "Authorization: <redacted>" in err  # the WebSocket handshake, logged at DEBUG
    assert TOKEN not in out + err


def test_no_debug_record_of_a_run_holds_the_token(
    cli: Cli,
    noise: str,
    secured: SimulatorThread,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("BATCHLINE_TOKEN", TOKEN)
    cli("queue", "noise")
    cli.server = secured.url
    caplog.set_level(logging.DEBUG)  # every logger, seen by a handler without any filter
    result = cli("-v", "run", "--until-idle", "--poll-interval", "0.05")
    assert result.code == 0, result.err
    messages = [record.getMessage() for record in caplog.records]
    assert any("Authorization: <redacted>" in message for message in messages)
    assert not [message for message in messages if TOKEN in message]


@pytest.mark.parametrize(
    ("message", "args", "redacted"),
    [
        ("> %s: %s", ("Authorization", "Bearer tok"), "> Authorization: <redacted>"),
        (
            "headers %r",
            ({"authorization": "Basic dTpw", "a": "b"},),
            "headers {'authorization': '<redacted>', 'a': 'b'}",
        ),
        ("%r", ([(b"Authorization", b"Bearer tok")],), "[(b'Authorization', b'<redacted>')]"),
        ("authorization=Bearer tok", None, "authorization=<redacted>"),
        ("queue answered 200", None, "queue answered 200"),
    ],
)
def test_authorization_values_are_blanked_in_log_records(
    message: str, args: tuple[object, ...] | None, redacted: str
) -> None:
    record = logging.LogRecord("x", logging.DEBUG, __file__, 1, message, args, None)
    assert RedactAuthorization().filter(record)
    assert record.getMessage() == redacted


@pytest.mark.parametrize("command", [["run", "--until-idle"], ["servers"], ["queue", "noise"]])
def test_credentials_in_a_server_address_are_refused(
    cli: Cli, noise: str, command: list[str]
) -> None:
    (job_id,) = cli("queue", "noise").out.split()
    cli.server = "http://artist:hunter2@127.0.0.1:9"
    result = cli(*command)
    assert (result.code, result.err.strip().splitlines()) == (
        2,
        [
            "batchline: no user name or password in a server address (http://127.0.0.1:9): "
            "a token goes in the app's Settings (kept in the keyring) or in $BATCHLINE_TOKEN"
        ],
    )
    assert "hunter2" not in result.out + result.err
    assert [(job["id"], job["attempts"]) for job in cli("jobs", "--json").json()] == [(job_id, [])]


def test_a_user_name_alone_is_refused_too() -> None:
    with pytest.raises(ValueError, match="no user name or password"):
        server_address("https://artist@render-box/comfy")


@pytest.mark.parametrize("server", ["  ", ",", "", " , "])
def test_a_server_option_naming_no_server_is_refused(cli: Cli, server: str) -> None:
    cli.server = server
    result = cli("run", "--until-idle")
    assert (result.code, result.err) == (2, f"batchline: --server names no server: {server!r}\n")


@pytest.mark.parametrize("port", ["99999", "0", "-1"])
def test_a_port_out_of_range_is_refused(cli: Cli, port: str) -> None:
    cli.server = f"http://127.0.0.1:{port}"
    for command in (["run", "--until-idle"], ["servers"]):
        result = cli(*command)
        assert (result.code, result.err) == (
            2,
            f"batchline: port {port} is not 1-65535 in server address 'http://127.0.0.1:{port}'\n",
        )


@pytest.mark.parametrize("priority", [str(2**63), str(-(2**63) - 1), str(10**30)])
def test_a_priority_the_ledger_cannot_store_is_refused(cli: Cli, noise: str, priority: str) -> None:
    result = cli("queue", "noise", f"--priority={priority}")
    assert (result.code, result.err) == (
        2,
        f"batchline: priority must be from {-(2**63)} to {2**63 - 1}, not {priority}\n",
    )
    assert cli("jobs", "--json").json() == []


def test_the_extreme_priorities_are_stored(cli: Cli, noise: str) -> None:
    for priority in (2**63 - 1, -(2**63)):
        assert cli("queue", "noise", f"--priority={priority}").code == 0
    assert [job["priority"] for job in cli("jobs", "--json").json()] == [2**63 - 1, -(2**63)]
