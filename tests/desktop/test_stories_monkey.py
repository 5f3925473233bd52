"""The monkey story: the real window as the app builds it (a demo session: the window, its
background controller, the simulator), a batch running, and a few hundred seeded random
actions (clicks, keys, wheel, drags, drops, batch and tab switches, dialogs opened and
dismissed). It fails on any uncaught exception, any Qt warning, or a window gone; its seed
replays a failure: ``MONKEY_SEED=... MONKEY_ACTIONS=... pytest`` this file.
``make monkey`` is the long run (10,000 actions)."""

from __future__ import annotations

import asyncio
import os
import random

import pytest

from desktop.app.session import Session, SessionOptions
from tests.desktop.background_helpers import background_controller, until
from tests.desktop.monkey import Figures, Monkey

ACTIONS = int(os.environ.get("MONKEY_ACTIONS", "300"))
# The suite's short run walks one fixed path (the same on every machine, so CI is not a
# lottery); `make monkey` draws a new seed each run unless MONKEY_SEED is given.
SUITE_SEED = 30001
_ASKED = os.environ.get("MONKEY_SEED", "")
SEED = (
    random.SystemRandom().randrange(1_000_000) if _ASKED == "random" else int(_ASKED or SUITE_SEED)
)


@pytest.mark.timeout(max(90, ACTIONS // 2))
@pytest.mark.expect_log("batchline.gui", "ERROR")  # the app's hook logs what the monkey fails on
def test_a_monkey_over_the_window_while_a_batch_runs(qtbot, qloop, tmp_path) -> None:
    print(f"\nmonkey: seed {SEED}, {ACTIONS} actions (replay: MONKEY_SEED={SEED})")

    async def scenario() -> Figures:
        options = SessionOptions(data_dir=tmp_path / "home", demo=True, demo_job_seconds=0.3)
        session = Session(options)
        window = await session.open()
        try:
            await background_controller(session)
            window.presets.select("Soft gradient (model-free)")
            window.composer.seeds.count.setValue(40)
            window.composer.queue_button.click()
            await until(lambda: window.model.rowCount() == 40)
            finished: asyncio.Future[Figures] = asyncio.get_running_loop().create_future()
            monkey = Monkey(window, SEED, ACTIONS, finished.set_result)
            monkey.start()
            figures = await finished
            monkey.deleteLater()
        finally:
            await session.close()
        return figures

    figures = qloop.run_until_complete(scenario())
    print(figures.summary())
    assert not figures.failures, (
        f"{figures.summary()}\nlast actions:\n"
        + "\n".join(figures.last)
        + "\n\n"
        + "\n\n".join(figures.failures)
    )
    assert figures.actions == ACTIONS
