"""Tests for desktop.composer.picture_values: at Queue the composer's pictures become picture
values (kept in the store), and a refused file names itself."""

from __future__ import annotations

import pytest

from core.batch import BatchSpec, GridAxis
from core.errors import InputError
from core.inputs.picture_ref import PictureRef
from core.inputs.picture_store import PictureStore
from desktop.composer.picture_values import with_pictures
from tests.desktop.composer.conftest import make_pictures


def test_pictures_become_their_refs(tmp_path) -> None:
    store = PictureStore(tmp_path / "store")
    one, two = make_pictures(tmp_path / "in", 2)
    spec = BatchSpec(
        overrides={"3.cfg": 7.0},
        grid=(GridAxis("10.image", (str(one), str(two))), GridAxis("3.steps", (10, 20))),
    )
    done = with_pictures(spec, store, {"20.image": str(one)}, frozenset({"10.image"}))
    refs = [PictureRef.from_param(value) for value in done.grid[0].values]
    assert [ref.file for ref in refs if ref] == ["render1.png", "render2.png"]
    assert done.grid[1] == spec.grid[1]
    assert done.overrides["3.cfg"] == 7.0
    assert PictureRef.from_param(done.overrides["20.image"]) == refs[0]
    assert store.read(refs[1]) == two.read_bytes()


def test_a_file_refused_is_named(tmp_path) -> None:
    store = PictureStore(tmp_path / "store")
    bad = tmp_path / "broken.png"
    bad.write_text("not a picture")
    spec = BatchSpec(grid=(GridAxis("10.image", (str(bad),)),))
    with pytest.raises(InputError, match=r"broken\.png"):
        with_pictures(spec, store, {}, frozenset({"10.image"}))
