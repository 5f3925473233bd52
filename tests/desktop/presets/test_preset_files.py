"""Tests for desktop.presets.preset_files: a file stored under its name, a taken name made
unique, the same content not stored twice, one error line for a file that does not load."""

from __future__ import annotations

import shutil
from pathlib import Path

from core.ledger import Ledger
from desktop.presets.preset_files import add_preset_file, add_preset_files, is_preset_file

PRESETS = Path(__file__).parents[2] / "data" / "presets"


def test_a_file_is_named_after_itself_and_another_content_gets_a_new_name(
    ledger: Ledger, tmp_path: Path
) -> None:
    first = shutil.copy(PRESETS / "api_primitive_seed.json", tmp_path / "fox.json")
    other = tmp_path / "other" / "fox.json"
    other.parent.mkdir()
    shutil.copy(PRESETS / "api_sdxl_refiner.json", other)
    added = add_preset_files(ledger, [Path(first), other, Path(first)])
    assert [result.name for result in added] == ["fox", "fox (2)", "fox"], "same content: same"
    assert all(result.error is None for result in added)


def test_a_file_that_does_not_load_is_one_error_line(ledger: Ledger, tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    result = add_preset_file(ledger, broken)
    assert (result.name, result.error is not None) == (None, True)
    assert "broken.json" in str(result.error)
    assert "\n" not in str(result.error)
    missing = add_preset_file(ledger, tmp_path / "gone.png")
    assert str(missing.error).startswith("gone.png")
    assert is_preset_file(Path("a.PNG"))
    assert not is_preset_file(Path("a.txt"))
