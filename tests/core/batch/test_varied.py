"""What a batch's jobs vary and share, gathered from their params."""

from __future__ import annotations

from core.batch.varied import BatchValues


def test_the_values_of_several_jobs_at_once() -> None:
    values = BatchValues.of(
        [
            {"3.seed": 1, "3.cfg": 7, "3.steps": 20},
            {"3.seed": 2, "3.cfg": 7, "3.steps": 30},
            {"3.seed": 3, "3.cfg": 7.0, "3.steps": 20},  # 7.0 is not the 7 every other job sent
        ]
    )
    assert values.jobs == 3
    assert values.varied == {"3.seed", "3.steps", "3.cfg"}
    assert values.shared() == {}
    alike = BatchValues.of([{"3.seed": 1, "3.cfg": 7}, {"3.seed": 2, "3.cfg": 7}])
    assert alike.shared() == {"3.cfg": 7}
    assert alike.columns() == {"3.seed"}
    assert BatchValues.of([]).jobs == 0
