"""The jobs table's value columns: the seed and each varied input in a column of its own,
what a whole batch shares said once for it."""

from __future__ import annotations

from PySide6.QtCore import Qt

from core.batch import BatchSpec, GridAxis, SeedPlan, queue_batch
from core.inputs import PictureRef
from core.ledger import NewJob, PresetContent
from core.presets import workflow_hash
from desktop.jobs.job_table_model import STATE_COLUMNS, Column, values_text

HEADER = Qt.Orientation.Horizontal
BIG_SEED = 18_446_744_073_709_551_000


def grid_batch(ledger, preset_name) -> str:
    """2 seeds × cfg 6, 7.5 × steps 20, 30; every job at 0.8 denoise with euler_a."""
    spec = BatchSpec(
        seeds=SeedPlan(count=2, start=BIG_SEED),
        overrides=("3.denoise=0.8", "3.sampler_name=euler_ancestral"),
        grid=(GridAxis("3.cfg", (6, 7.5)), GridAxis("3.steps", (20, 30))),
    )
    return queue_batch(ledger, preset_name, spec)[0].id


def headers(model) -> list[str]:
    display = Qt.ItemDataRole.DisplayRole
    return [model.headerData(c, HEADER, display) for c in range(model.columnCount())]


def test_each_varied_input_has_its_own_column_and_shared_values_do_not(
    model, ledger, preset_name
) -> None:
    batch = grid_batch(ledger, preset_name)
    model.load_all()
    assert headers(model)[len(Column) :] == [
        "KSampler · seed",
        "KSampler · cfg",
        "KSampler · steps",
    ]
    seed = model.index(7, model.value_column("3.seed"))
    assert seed.data() == str(BIG_SEED + 1), "the seed in full, never elided"
    assert seed.data(Qt.ItemDataRole.TextAlignmentRole) == int(
        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
    )
    # queued as the sheet reads a grid: along a row (cfg) first, then the next row (steps)
    assert model.index(1, model.value_column("3.cfg")).data() == "7.5"
    assert model.index(2, model.value_column("3.steps")).data() == "30"
    assert model.value_column("3.denoise") is None, "shared by every job: no column"
    line = "KSampler · denoise 0.8 · KSampler · sampler_name euler_ancestral (all 8)"
    assert model.batch_line(batch) == line
    tip = model.index(0, Column.batch).data(Qt.ItemDataRole.ToolTipRole)
    assert tip == f"Batch {batch} · {line}"


def test_the_seed_column_sorts_numerically(model, ledger, preset_name) -> None:
    ledger.create_batch(
        preset_name, [NewJob(params={"3.seed": s}) for s in (10, 9, 100)], requester="t"
    )
    model.load_all()
    model.sort(model.value_column("3.seed"), Qt.SortOrder.AscendingOrder)
    assert [model.job_at(r).params["3.seed"] for r in range(3)] == [9, 10, 100]


def test_two_nodes_setting_one_input_name_are_told_apart(model, ledger, preset_name) -> None:
    params = [{"3.seed": s, "6.text": t, "7.text": "blurry"} for s, t in ((1, "fox"), (2, "owl"))]
    jobs = [NewJob(params=p) for p in params]
    batch, _ids = ledger.create_batch(preset_name, jobs, requester="t")
    model.load_all()
    assert headers(model)[len(Column) :] == ["KSampler · seed", "Positive prompt · text"]
    assert model.batch_line(batch.id) == "Negative prompt · text blurry (all 2)"
    params = [{"3.seed": 3, "6.text": "cat", "7.text": "dark"}, {"3.seed": 4, "7.text": "x"}]
    ledger.create_batch(preset_name, [NewJob(params=p) for p in params], requester="t")
    model.load_all()
    assert headers(model)[len(Column) :] == [
        "KSampler · seed",
        "Positive prompt · text",
        "Negative prompt · text",
    ]


def test_value_columns_follow_the_batch_filter(window, ledger, preset_name, qtbot) -> None:
    grid = grid_batch(ledger, preset_name)
    _batch, _ids = ledger.create_batch(
        preset_name, [NewJob(params={"3.seed": s}) for s in (1, 2)], requester="t"
    )
    window.model.load_all()
    window.refresh_batches()
    table, model, header = window.table, window.model, window.table.horizontalHeader()
    seed, cfg, steps = (model.value_column(k) for k in ("3.seed", "3.cfg", "3.steps"))
    after_state = len(STATE_COLUMNS)
    assert [header.visualIndex(c) for c in (seed, cfg, steps)] == [
        after_state,
        after_state + 1,
        after_state + 2,
    ], "after the state's columns"
    window.sheet.show_batch(grid)
    assert not any(table.isColumnHidden(c) for c in (Column.batch, seed, cfg, steps))
    whole_seed = table.fontMetrics().horizontalAdvance(str(BIG_SEED))
    assert table.columnWidth(seed) > whole_seed, "sized to the rows read with the column"
    window.filter_bar.batch.setCurrentIndex(window.filter_bar.batch.findData(_batch.id))
    assert not table.isColumnHidden(seed)
    assert table.isColumnHidden(Column.batch), "the same in every row"
    assert table.isColumnHidden(cfg)
    assert table.isColumnHidden(steps)
    assert window.filter_bar.shared.text() == ""
    window.filter_bar.batch.setCurrentIndex(window.filter_bar.batch.findData(grid))
    assert not table.isColumnHidden(cfg)
    assert "denoise 0.8" in window.filter_bar.shared.text()
    assert table.columnWidth(seed) > whole_seed, "the whole seed fits"


def test_no_column_is_narrower_than_its_header(window) -> None:
    table = window.table
    header = table.horizontalHeader()
    for column in Column:
        if column == Column.reason or table.isColumnHidden(column):
            continue  # the reason stretches
        text = table.model().headerData(column, HEADER, Qt.ItemDataRole.DisplayRole)
        # the header's own size for its text, margins and sort arrow included
        assert table.columnWidth(column) >= header.sectionSizeHint(column), text


def test_a_picture_value_reads_as_its_file_name(model, ledger, preset_name) -> None:
    """One job per picture: its column and what the batch shares name the file, never the
    value's JSON (its hash, its source path)."""
    renders = [
        PictureRef(f"{i:02x}" * 32, f"render_{i:03}.png", f"/r/render_{i:03}.png", 90).to_param()
        for i in (3, 4)
    ]
    mask = PictureRef("ee" * 32, "mask.png", "/r/mask.png", 80).to_param()
    params = [{"3.seed": 1, "9.image": r, "10.image": mask} for r in renders]
    batch, _ids = ledger.create_batch(
        preset_name, [NewJob(params=p) for p in params], requester="t"
    )
    model.load_all()
    column = model.value_column("9.image")
    assert [model.index(r, column).data() for r in range(2)] == ["render_003.png", "render_004.png"]
    tip = model.index(1, column).data(Qt.ItemDataRole.ToolTipRole)
    assert tip == "render_004.png"
    assert model.batch_line(batch.id) == "image mask.png (all 2)"
    assert values_text(params[0]) == "10.image=mask.png, seed=1, 9.image=render_003.png"


def test_an_sdxl_batch_heads_its_columns_as_the_composer_names_them(
    model, ledger, tmp_path
) -> None:
    """The table's door: the base's and the refiner's prompts, each its own name."""
    from tests.core.presets.test_input_names import (
        BASE_PROMPT,
        BASE_SEED,
        REFINER_PROMPT,
        sdxl_grid_batch,
    )

    sdxl_grid_batch(ledger, tmp_path)
    model.load_all()
    shown = headers(model)[len(Column) :]
    assert {BASE_PROMPT, REFINER_PROMPT, BASE_SEED} <= set(shown), shown
    assert len(set(shown)) == len(shown), "no two columns read alike"
    column = model.value_column("6.text")
    tip = model.headerData(column, HEADER, Qt.ItemDataRole.ToolTipRole)
    assert tip.startswith("6.text"), "the id beside the name"


def test_two_presets_setting_the_same_name_get_their_ids(model, ledger, preset_name) -> None:
    other = {
        "5": {"class_type": "KSampler", "inputs": {"seed": 1, "cfg": 7}},
    }
    ledger.presets.add("other", PresetContent(workflow_hash(other), other))
    ledger.create_batch("other", [NewJob({"5.seed": s}) for s in (1, 2)], requester="t")
    ledger.create_batch(preset_name, [NewJob({"3.seed": s}) for s in (1, 2)], requester="t")
    model.load_all()
    assert sorted(headers(model)[len(Column) :]) == [
        "KSampler · seed (3.seed)",
        "KSampler · seed (5.seed)",
    ]


def visible_headers(table) -> list[str]:
    header = table.horizontalHeader()
    model = table.model()
    shown = [c for c in range(model.columnCount()) if not table.isColumnHidden(c)]
    return [
        model.headerData(c, HEADER, Qt.ItemDataRole.DisplayRole)
        for c in sorted(shown, key=header.visualIndex)
    ]


def test_the_state_comes_first_and_the_values_are_those_of_the_batch_in_view(
    window, ledger, preset_name, qtbot
) -> None:
    """Not one column per varied input of every batch ever queued: the batch the pictures show,
    or the selected jobs' batches, or the one filtered on."""
    grid = grid_batch(ledger, preset_name)
    other = [{"3.seed": 1, "6.text": "fox"}, {"3.seed": 2, "6.text": "owl"}]
    second, ids = ledger.create_batch(preset_name, [NewJob(params=p) for p in other], requester="t")
    window.model.load_all()
    window.refresh_batches(second.id)
    qtbot.waitUntil(lambda: window.sheet.batch_id() == second.id)
    shown = visible_headers(window.table)
    assert shown[:6] == ["State", "Progress", "In queue", "Attempt", "Elapsed", "⚠"]
    assert shown[6:] == [
        "KSampler · seed",
        "Positive prompt · text",
        "Reason",
        "Batch",
        "Job",
    ], "the shown batch's values alone"
    window.sheet.show_batch(grid)
    assert visible_headers(window.table)[6:9] == [
        "KSampler · seed",
        "KSampler · cfg",
        "KSampler · steps",
    ]
    window.select_job(ids[0])  # the table's selection: its batch (the sheet follows it)
    assert "Positive prompt · text" in visible_headers(window.table)
    assert "KSampler · cfg" not in visible_headers(window.table)


def test_a_colour_reads_as_hex_and_a_random_seed_whole(window, ledger, tmp_path, qtbot) -> None:
    """An EmptyImage's color varied: #3399FF as the composer shows it, never 3381759."""
    workflow = {
        "1": {
            "class_type": "EmptyImage",
            "inputs": {"width": 64, "height": 64, "batch_size": 1, "color": 0},
        },
        "2": {"class_type": "SaveImage", "inputs": {"images": ["1", 0], "filename_prefix": "x"}},
        "3": {"class_type": "KSampler", "inputs": {"seed": 0}},
    }
    ledger.presets.add("canvas", PresetContent(workflow_hash(workflow), workflow))
    params = [{"1.color": 0x3399FF, "3.seed": BIG_SEED}, {"1.color": 0x000000, "3.seed": 7}]
    batch, _ids = ledger.create_batch("canvas", [NewJob(p) for p in params], requester="t")
    window.model.load_all()
    window.refresh_batches(batch.id)
    model, table = window.model, window.table
    colour = model.value_column("1.color")
    assert [model.index(r, colour).data() for r in range(2)] == ["#3399FF", "#000000"]
    seed = model.value_column("3.seed")
    assert model.index(0, seed).data() == str(BIG_SEED)
    qtbot.waitUntil(lambda: not table.isColumnHidden(seed))
    needed = table.fontMetrics().horizontalAdvance(str(BIG_SEED))
    assert table.columnWidth(seed) > needed, "the 20 digits shown whole"
