"""The HTTP API's tokens: shown once, kept only as a hash, named by their requester."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

import pytest

from core.errors import InputError, UnknownRecord
from core.ledger.tokens import token_hash
from core.paths import ledger_path

if TYPE_CHECKING:
    from core.ledger import Ledger


def test_a_token_is_its_requester_and_only_its_hash_is_stored(ledger: Ledger) -> None:
    token = ledger.tokens.create("krita")
    assert token.startswith("btl_")
    assert len(token) > 40
    assert ledger.tokens.requester(token) == "krita"
    assert ledger.tokens.requester(token + "x") is None
    conn = sqlite3.connect(ledger_path(ledger.folder))
    try:
        dump = "\n".join(conn.iterdump())
    finally:
        conn.close()
    assert token not in dump
    assert token_hash(token) in dump


def test_listing_shows_names_and_last_use(ledger: Ledger) -> None:
    first = ledger.tokens.create("bob")
    ledger.tokens.create("alice")
    assert [(t.name, t.last_used_at) for t in ledger.tokens.all()] == [
        ("alice", None),
        ("bob", None),
    ]
    ledger.tokens.requester(first)
    used = {t.name: t.last_used_at for t in ledger.tokens.all()}
    assert used["bob"] is not None
    assert used["alice"] is None


def test_revoking_refuses_the_token_and_frees_the_name(ledger: Ledger) -> None:
    token = ledger.tokens.create("script")
    with pytest.raises(InputError, match="has a token already"):
        ledger.tokens.create("script")
    ledger.tokens.revoke("script")
    assert ledger.tokens.requester(token) is None
    assert ledger.tokens.requester(ledger.tokens.create("script")) == "script"
    with pytest.raises(UnknownRecord, match="no token named 'nobody'"):
        ledger.tokens.revoke("nobody")


@pytest.mark.parametrize("name", ["", " bob", "a b", "-x", "x" * 65, "é", "a/b"])
def test_a_name_that_cannot_be_a_requester_is_refused(ledger: Ledger, name: str) -> None:
    with pytest.raises(InputError, match="cannot name a token"):
        ledger.tokens.create(name)
