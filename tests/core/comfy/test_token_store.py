"""Tests for core.comfy.token_store: a server's token in the keyring, else $BATCHLINE_TOKEN."""

from __future__ import annotations

from core.comfy.token_store import keyring_available, load_token, save_token


def test_keyring_token_wins_over_the_environment(memory_keyring, monkeypatch) -> None:
    monkeypatch.setenv("BATCHLINE_TOKEN", "from-env")
    save_token("http://x", "from-keyring")
    assert load_token("http://x") == "from-keyring"
    save_token("http://x", "")
    assert load_token("http://x") == "from-env"


def test_without_a_keyring_nothing_is_stored_and_the_environment_gives_the_token(
    no_keyring, monkeypatch
) -> None:
    monkeypatch.delenv("BATCHLINE_TOKEN", raising=False)
    assert not keyring_available()
    assert not save_token("http://x", "t")
    assert load_token("http://x") is None
    monkeypatch.setenv("BATCHLINE_TOKEN", "from-env")
    assert load_token("http://x") == "from-env"
