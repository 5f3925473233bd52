"""Which files "one job per picture" takes: a folder's pictures, a glob's, one file; in
natural order; nothing found is one line naming what was asked for."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import InputError
from core.inputs.picture_files import picture_paths
from tests.core.inputs.pictures import make_png


def _names(paths: list[Path]) -> list[str]:
    return [p.name for p in paths]


def test_a_folder_gives_its_pictures_in_natural_order_not_hidden_nor_nested(
    tmp_path: Path,
) -> None:
    for name in ("render10.png", "render2.png", "Render1.jpg", ".hidden.png", "notes.txt"):
        make_png(tmp_path / name) if name.endswith((".png", ".jpg")) else (
            tmp_path / name
        ).write_text("x")
    make_png(tmp_path / "sub" / "render3.png")
    (tmp_path / "folder.png").mkdir()
    assert _names(picture_paths(tmp_path)) == ["Render1.jpg", "render2.png", "render10.png"]
    assert _names(picture_paths(str(tmp_path))) == ["Render1.jpg", "render2.png", "render10.png"]


def test_a_glob_gives_what_it_matches_in_natural_order(tmp_path: Path) -> None:
    for name in ("a10.png", "a9.png", "b1.png", "a1.jpg"):
        make_png(tmp_path / name)
    assert _names(picture_paths(f"{tmp_path}/a*.png")) == ["a9.png", "a10.png"]
    make_png(tmp_path / "deep" / "a2.png")
    # By path: the folder's own files, then the subfolder's.
    assert _names(picture_paths(f"{tmp_path}/**/a*.png")) == ["a9.png", "a10.png", "a2.png"]


def test_one_file_is_itself(tmp_path: Path) -> None:
    path = make_png(tmp_path / "one.webp.png")
    assert picture_paths(path) == [path]


@pytest.mark.parametrize(
    ("where", "said"),
    [
        ("missing", "no such file or folder"),
        ("empty", "the folder holds no picture files"),
        ("empty/*.png", "no file matches"),
    ],
)
def test_nothing_found_is_one_line_naming_it(tmp_path: Path, where: str, said: str) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "readme.txt").write_text("no pictures")
    asked = str(tmp_path / where)
    with pytest.raises(InputError) as caught:
        picture_paths(asked)
    assert str(caught.value) == f"{asked}: {said}"
