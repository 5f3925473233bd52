"""Searches kept by name: saved, replaced under the same name, listed by name, forgotten;
they survive the ledger being closed and opened again."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from core.errors import InputError, UnknownRecord
from core.ledger import Ledger

if TYPE_CHECKING:
    from pathlib import Path


def test_saved_searches_are_kept_replaced_and_forgotten(tmp_path: Path) -> None:
    with Ledger(tmp_path) as ledger:
        first = ledger.saved_searches.save("Foxes", "fox is:starred")
        ledger.saved_searches.save("Owls", "owl")
        again = ledger.saved_searches.save(" Foxes ", "fox -snow")
        assert (again.name, again.query, again.created_at) == (
            "Foxes",
            "fox -snow",
            first.created_at,
        )
    with Ledger(tmp_path) as ledger:
        kept = ledger.saved_searches.all()
        assert [(s.name, s.query) for s in kept] == [("Foxes", "fox -snow"), ("Owls", "owl")]
        assert ledger.saved_searches.get("Owls").query == "owl"
        ledger.saved_searches.delete("Owls")
        assert [s.name for s in ledger.saved_searches.all()] == ["Foxes"]


def test_unknown_and_badly_named_searches_are_refused(tmp_path: Path) -> None:
    with Ledger(tmp_path) as ledger:
        with pytest.raises(UnknownRecord, match="no saved search 'x'"):
            ledger.saved_searches.get("x")
        with pytest.raises(UnknownRecord, match="no saved search 'x'"):
            ledger.saved_searches.delete("x")
        with pytest.raises(InputError, match="a saved search name cannot hold a path separator"):
            ledger.saved_searches.save("a/b", "fox")
        with pytest.raises(InputError, match="needs a non-empty name"):
            ledger.saved_searches.save("  ", "fox")
        assert ledger.saved_searches.all() == []
