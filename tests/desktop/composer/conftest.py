"""Fixtures shared by this folder's test files: the composer on a stored preset."""

from __future__ import annotations

import pytest

from desktop.composer.batch_composer import BatchComposerWidget


@pytest.fixture
def composer(qtbot, ledger, controller, preset_name):
    composer = BatchComposerWidget(ledger, controller)
    qtbot.addWidget(composer)
    composer.set_preset(preset_name)
    return composer
