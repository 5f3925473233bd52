"""Installing the ComfyUI extension into real folders: refusals, updates, a changed copy kept."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from core import comfyui_extension
from core.comfyui_extension import (
    FOLDER_NAME,
    SHIPPED_DIGESTS,
    folder_digest,
    install,
    source_folder,
)
from core.errors import InputError


def comfyui(tmp_path: Path) -> Path:
    root = tmp_path / "ComfyUI"
    (root / "custom_nodes").mkdir(parents=True)
    (root / "main.py").write_text("# ComfyUI\n")
    return root


def test_the_shipped_folder_is_a_node_pack_with_no_nodes_and_its_digest_is_recorded() -> None:
    source = source_folder()
    init = ast.parse((source / "__init__.py").read_text("utf-8"))
    names = {
        t.id
        for node in init.body
        if isinstance(node, ast.AnnAssign | ast.Assign)
        for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(t, ast.Name)
    }
    assert {"NODE_CLASS_MAPPINGS", "NODE_DISPLAY_NAME_MAPPINGS", "WEB_DIRECTORY"} <= names
    namespace: dict[str, object] = {}
    exec(compile(init, "__init__.py", "exec"), namespace)
    assert namespace["NODE_CLASS_MAPPINGS"] == {}
    assert namespace["WEB_DIRECTORY"] == "./js"
    assert (source / "js" / "batchline.js").is_file()
    assert "MIT License" in (source / "LICENSE").read_text("utf-8")
    assert "batchline tokens create comfyui" in (source / "README.md").read_text("utf-8")
    assert SHIPPED_DIGESTS[-1] == folder_digest(source), (
        "the extension changed: add its new digest to SHIPPED_DIGESTS"
    )


def test_installs_then_finds_it_unchanged(tmp_path: Path) -> None:
    root = comfyui(tmp_path)
    done = install(root)
    target = root / "custom_nodes" / FOLDER_NAME
    assert (done.outcome, done.folder) == ("installed", target)
    assert done.sentence().endswith("Restart ComfyUI to load it.")
    assert folder_digest(target) == folder_digest(source_folder())
    assert sorted(p.name for p in (root / "custom_nodes").iterdir()) == [FOLDER_NAME]
    assert install(root).outcome == "unchanged"


def test_refuses_what_is_not_comfyui(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not look like ComfyUI"):
        install(tmp_path)
    (tmp_path / "main.py").write_text("")
    with pytest.raises(InputError, match="does not look like ComfyUI"):
        install(tmp_path)
    with pytest.raises(InputError, match="is not a folder"):
        install(tmp_path / "main.py")
    assert not (tmp_path / "custom_nodes").exists()


def test_updates_an_unchanged_older_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = comfyui(tmp_path)
    install(root)
    target = root / "custom_nodes" / FOLDER_NAME
    (target / "js" / "batchline.js").write_text("// version 0\n")
    monkeypatch.setattr(
        comfyui_extension, "SHIPPED_DIGESTS", (folder_digest(target), *SHIPPED_DIGESTS)
    )
    done = install(root)
    assert (done.outcome, done.kept_aside) == ("updated", None)
    assert folder_digest(target) == folder_digest(source_folder())
    assert sorted(p.name for p in (root / "custom_nodes").iterdir()) == [FOLDER_NAME]


def test_a_changed_copy_is_refused_then_kept_aside_with_force(tmp_path: Path) -> None:
    root = comfyui(tmp_path)
    install(root)
    target = root / "custom_nodes" / FOLDER_NAME
    (target / "js" / "mine.js").write_text("// the artist's\n")
    with pytest.raises(InputError, match=r"was changed since Batchline installed it.*--force"):
        install(root)
    assert (target / "js" / "mine.js").is_file()
    done = install(root, force=True)
    assert done.kept_aside == root / "custom_nodes" / f"{FOLDER_NAME}.1.disabled"
    assert (done.kept_aside / "js" / "mine.js").read_text() == "// the artist's\n"
    assert "your changed copy is kept as batchline-send.1.disabled" in done.sentence()
    assert folder_digest(target) == folder_digest(source_folder())
    other = install(root, name="batchline-send-2")
    assert other.folder == root / "custom_nodes" / "batchline-send-2"


def test_links_and_files_in_the_way_are_never_followed(tmp_path: Path) -> None:
    root = comfyui(tmp_path)
    elsewhere = tmp_path / "precious"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("mine")
    target = root / "custom_nodes" / FOLDER_NAME
    os.symlink(elsewhere, target)
    with pytest.raises(InputError, match="is a link"):
        install(root)
    done = install(root, force=True)
    assert done.outcome == "replaced"
    assert not target.is_symlink()
    assert (target / "__init__.py").is_file()
    assert (elsewhere / "keep.txt").read_text() == "mine"
    assert sorted(p.name for p in elsewhere.iterdir()) == ["keep.txt"]

    inner_link = target / "js" / "link.js"
    os.symlink(elsewhere / "keep.txt", inner_link)
    with pytest.raises(InputError, match="was changed"):
        install(root)
    install(root, force=True)
    assert (elsewhere / "keep.txt").read_text() == "mine"

    file_root = comfyui(tmp_path / "two")
    (file_root / "custom_nodes" / FOLDER_NAME).write_text("a file")
    with pytest.raises(InputError, match="a file, not a folder"):
        install(file_root)


def test_a_bad_folder_name_is_refused(tmp_path: Path) -> None:
    root = comfyui(tmp_path)
    for name in ("", "..", "a/b"):
        with pytest.raises(InputError, match="is not a folder name"):
            install(root, name=name)
