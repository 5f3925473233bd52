"""Tests for desktop.composer.wildcard_preview: a prompt with wildcards shows its mode, count
and examples before queueing; every combination multiplies the jobs; a bomb is refused at
once, named."""

from __future__ import annotations

import pytest

from core.ledger.settings import WILDCARDS_FOLDER


def text_of(composer, ref):
    return composer.parameters_box.editor(ref)


def test_a_prompt_with_wildcards_shows_count_and_examples(composer) -> None:
    composer.seeds.count.setValue(2)
    panel = composer.wildcards
    assert panel.isHidden()
    text_of(composer, "6.text").setPlainText("a {red|green|blue} fox, {day|night}")
    assert not panel.isHidden()
    row = panel._rows["6.text"]
    assert row.count.text() == "6 combinations"
    assert row.mode.currentData() == "random"
    examples = row.examples.text().splitlines()
    assert 1 <= len(examples) <= 3
    assert all(line.startswith("e.g. a ") and "fox" in line for line in examples)
    assert composer.job_count() == 2  # random: one text per job
    row.mode.setCurrentIndex(row.mode.findData("all"))
    assert composer.job_count() == 12  # every combination: 6 per seed
    assert row.examples.text().splitlines() == [
        "e.g. a red fox, day",
        "e.g. a red fox, night",
        "e.g. a green fox, day",
    ]
    assert composer.spec().wildcards == {"6.text": "all"}
    text_of(composer, "6.text").setPlainText("a plain fox")
    assert panel.isHidden()
    assert composer.spec().wildcards == {}


def test_a_file_wildcard_reads_the_folder_of_the_settings(composer, ledger, tmp_path) -> None:
    (tmp_path / "animals.txt").write_text("heron\nowl\n", encoding="utf-8")
    WILDCARDS_FOLDER.set(ledger, tmp_path)
    text_of(composer, "6.text").setPlainText("a __animals__ at dawn")
    row = composer.wildcards._rows["6.text"]
    assert row.count.text() == "2 combinations"
    assert set(row.examples.text().splitlines()) <= {"e.g. a heron at dawn", "e.g. a owl at dawn"}


@pytest.mark.timeout(60)  # a bomb built rather than counted would hang here
def test_a_wildcard_bomb_is_refused_at_once(composer) -> None:
    bomb = "{a|b|c|d|e|f|g|h|i|j}" * 40  # 10**40 texts: counted, never built
    text_of(composer, "6.text").setPlainText(bomb)
    row = composer.wildcards._rows["6.text"]
    row.mode.setCurrentIndex(row.mode.findData("all"))
    assert row.count.text() == "refused"
    assert "more than 10,000" in row.examples.text()
    assert composer.job_count() == 0
    assert not composer.queue_button.isEnabled()


def test_a_name_without_file_is_said(composer, ledger, tmp_path) -> None:
    WILDCARDS_FOLDER.set(ledger, tmp_path)
    text_of(composer, "6.text").setPlainText("a __nowhere__ fox")
    row = composer.wildcards._rows["6.text"]
    assert row.count.text() == "refused"
    assert "nowhere" in row.examples.text()
