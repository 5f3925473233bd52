"""Batchline's copy of each queued picture: checked once, kept by content, read back only
while intact; a bad file is refused in one line naming it and nothing is stored."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from core.errors import InputError
from core.inputs import picture_store as store_module
from core.inputs.picture_store import MAX_PICTURE_BYTES, PictureStore
from core.ledger import Ledger
from tests.core.inputs.pictures import make_png


def test_a_picture_is_kept_by_content_and_read_back(tmp_path: Path) -> None:
    source = make_png(tmp_path / "renders" / "Render 3.PNG", shade=3)
    store = PictureStore(tmp_path / "store")
    ref = store.add(source)
    data = source.read_bytes()
    assert ref.sha256 == hashlib.sha256(data).hexdigest()
    assert (ref.file, ref.source, ref.size) == ("Render 3.PNG", str(source.absolute()), len(data))
    assert store.path_of(ref) == tmp_path / "store" / f"{ref.sha256}.png"
    source.unlink()  # the source may go: the job keeps its copy
    assert store.read(ref) == data
    assert store.add(make_png(tmp_path / "again.png", shade=3)).sha256 == ref.sha256
    assert sorted(p.name for p in (tmp_path / "store").iterdir()) == [f"{ref.sha256}.png"]


def test_the_ledgers_store_lies_in_its_data_folder(tmp_path: Path) -> None:
    with Ledger(tmp_path / "home") as ledger:
        assert PictureStore.of(ledger).root == tmp_path / "home" / "inputs"


def test_a_copy_gone_or_changed_is_one_line_not_other_bytes(tmp_path: Path) -> None:
    store = PictureStore(tmp_path / "store")
    ref = store.add(make_png(tmp_path / "a.png"))
    store.path_of(ref).write_bytes(b"changed")
    with pytest.raises(InputError, match=r"the copy of a\.png Batchline kept .* has changed"):
        store.read(ref)
    store.add(make_png(tmp_path / "a.png"))  # adding it again mends the copy
    assert store.read(ref) == (tmp_path / "a.png").read_bytes()
    store.path_of(ref).unlink()
    with pytest.raises(InputError, match=r"the copy of a\.png Batchline kept .* is gone"):
        store.read(ref)


def _refused(store: PictureStore, path: Path) -> str:
    with pytest.raises(InputError) as caught:
        store.add(path)
    assert not store.root.exists() or list(store.root.iterdir()) == []
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: ")
    return message


def test_a_missing_file_a_folder_and_an_empty_file_are_refused(tmp_path: Path) -> None:
    store = PictureStore(tmp_path / "store")
    assert _refused(store, tmp_path / "gone.png").endswith("no such picture file")
    (tmp_path / "dir.png").mkdir()
    assert _refused(store, tmp_path / "dir.png").endswith("a folder, not a picture file")
    (tmp_path / "empty.png").write_bytes(b"")
    assert _refused(store, tmp_path / "empty.png").endswith("the file is empty, not a picture")


def test_a_file_that_is_not_a_picture_is_refused(tmp_path: Path) -> None:
    store = PictureStore(tmp_path / "store")
    (tmp_path / "notes.png").write_text("a shopping list")
    assert _refused(store, tmp_path / "notes.png").endswith("not a picture (Pillow cannot read it)")
    truncated = make_png(tmp_path / "cut.png", size=(64, 64))
    truncated.write_bytes(truncated.read_bytes()[:60])
    assert _refused(store, truncated).endswith("not a picture (Pillow cannot read it)")


def test_an_unreadable_file_is_refused(tmp_path: Path) -> None:
    """A path through a file (root may read any file, so not a mode taken away)."""
    path = make_png(tmp_path / "a.png") / "b.png"
    assert _refused(PictureStore(tmp_path / "s"), path).endswith("cannot be read (Not a directory)")


def test_a_file_past_the_upload_limit_is_refused_unread_past_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The limit itself (100 MiB less 64 KiB, ComfyUI's default for the whole request) is
    lowered here so as not to write 100 MB; a picture just at the limit still goes."""
    assert MAX_PICTURE_BYTES == 100 * 2**20 - 64 * 2**10
    picture = make_png(tmp_path / "big.png", size=(64, 64))
    limit = picture.stat().st_size
    monkeypatch.setattr(store_module, "MAX_PICTURE_BYTES", limit)
    store = PictureStore(tmp_path / "store")
    assert store.add(picture).size == limit
    store.path_of(store.add(picture)).unlink()
    bigger = make_png(tmp_path / "bigger.png", size=(96, 96))
    assert "too large to upload" in _refused(store, bigger)


def test_a_picture_with_too_many_pixels_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PIL import Image

    picture = make_png(tmp_path / "huge.png", size=(64, 64))
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 64 * 64 // 4)  # past twice the limit
    store = PictureStore(tmp_path / "store")
    assert _refused(store, picture).endswith("the picture has too many pixels to load")
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 64 * 64 - 1)  # past it, within twice
    assert store.add(picture).size == picture.stat().st_size


def test_bytes_sent_are_checked_as_a_file_is_and_kept_under_their_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = make_png(tmp_path / "sent.png", shade=5).read_bytes()
    store = PictureStore(tmp_path / "store")
    ref = store.add_bytes(data, "render_7.png")
    assert (ref.file, ref.source, ref.size) == ("render_7.png", "api:render_7.png", len(data))
    assert ref.sha256 == hashlib.sha256(data).hexdigest()
    assert store.read(ref) == data
    assert store.has(ref)
    assert store.add_bytes(data, "x.png", source="drop:x.png").source == "drop:x.png"
    made_up = PictureStore(tmp_path / "other")
    assert not made_up.has(ref), "a store that never took the bytes has no copy"
    monkeypatch.setattr(store_module, "MAX_PICTURE_BYTES", len(data) - 1)
    for bad, ending in [
        (b"", "the file is empty, not a picture"),
        (b"a shopping list", "not a picture (Pillow cannot read it)"),
        (data, "too large to upload (0.0 MiB; a ComfyUI server takes at most 0.0 MiB by default)"),
    ]:
        with pytest.raises(InputError) as caught:
            made_up.add_bytes(bad, "notes.png")
        assert str(caught.value) == f"notes.png: {ending}"
    assert not made_up.root.exists()


def test_a_copy_of_another_size_is_not_had(tmp_path: Path) -> None:
    store = PictureStore(tmp_path / "store")
    ref = store.add(make_png(tmp_path / "a.png"))
    store.path_of(ref).write_bytes(b"cut")
    assert not store.has(ref)


def test_a_check_says_what_adding_would_keep_and_keeps_nothing(tmp_path: Path) -> None:
    picture = make_png(tmp_path / "a.png", shade=9)
    store = PictureStore(tmp_path / "store")
    ref = store.check(picture)
    assert not store.root.exists()
    assert store.add(picture) == ref
    (tmp_path / "notes.png").write_text("a shopping list")
    with pytest.raises(InputError, match=r"notes\.png: not a picture"):
        store.check(tmp_path / "notes.png")
