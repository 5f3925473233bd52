"""`batchline tokens create|list|revoke`: the HTTP API's requesters."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from core.batch import default_requester
from core.ledger import Ledger
from core.paths import ledger_path
from tests.cli.conftest import Cli


def test_a_token_is_printed_once_listed_by_name_and_revoked(cli: Cli, home: Path) -> None:
    created = cli("tokens", "create", "krita")
    assert created.code == 0, created.err
    token = created.out.strip()
    with Ledger(home) as ledger:
        assert ledger.tokens.requester(token) == "krita"
    conn = sqlite3.connect(ledger_path(home))
    try:
        assert token not in "\n".join(conn.iterdump()), "only its hash is kept"
    finally:
        conn.close()
    listed = cli("tokens", "list")
    assert listed.out.startswith("krita\tcreated ")
    assert token not in listed.out
    assert [t["name"] for t in cli("tokens", "list", "--json").json()] == ["krita"]
    assert cli("tokens", "revoke", "krita").out == "revoked: the token of 'krita'\n"
    with Ledger(home) as ledger:
        assert ledger.tokens.requester(token) is None
    assert cli("tokens", "list").out == "no tokens: make one with `batchline tokens create NAME`\n"


def test_refusals_are_one_line(cli: Cli) -> None:
    assert cli("tokens", "create", "bob").code == 0
    again = cli("tokens", "create", "bob")
    assert (again.code, again.err) == (
        2,
        "batchline: the requester 'bob' has a token already: revoke it first\n",
    )
    bad = cli("tokens", "create", "two words")
    assert bad.code == 2
    assert "cannot name a token" in bad.err
    unknown = cli("tokens", "revoke", "nobody")
    assert (unknown.code, unknown.err) == (2, "batchline: no token named 'nobody'\n")


def test_a_token_named_as_the_local_user_needs_as_local_user(cli: Cli, home: Path) -> None:
    me = default_requester()
    refused = cli("tokens", "create", me)
    assert refused.code == 2
    assert refused.err.startswith(f"batchline: {me!r} is your own user name here, ")
    assert "--as-local-user" in refused.err
    assert cli("tokens", "list", "--json").json() == []
    made = cli("tokens", "create", me, "--as-local-user")
    assert made.code == 0, made.err
    assert made.err.startswith(f"note: the token acts as {me}, on every job queued here")
    with Ledger(home) as ledger:
        assert ledger.tokens.requester(made.out.strip()) == me
