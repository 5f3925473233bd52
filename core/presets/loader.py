"""Loading a preset from an API JSON file, a ComfyUI PNG or an editor-format JSON file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.catalogue import Catalogue
from core.errors import PresetError
from core.presets.api_format import is_api_workflow, validate_api_workflow
from core.presets.checks import check_workflow, escape_invalid, shape_fault
from core.presets.editor_convert import convert_editor
from core.presets.graph import is_editor_workflow
from core.presets.model import InputRef, Preset, PresetFormat, workflow_hash
from core.presets.parameters import list_parameters
from core.presets.png import is_png, read_text_chunks
from core.presets.seeds import detect_seed_inputs, explicit_seed_inputs

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

MAX_FILE_BYTES = 50 * 1024 * 1024


def load_preset(
    path: str | Path,
    catalogue: Catalogue | None = None,
    seed_inputs: Iterable[str | InputRef] | None = None,
) -> Preset:
    """Load a preset file, detecting its format from its content.

    Args:
        path: an API-format JSON, a ComfyUI PNG, or an editor-format JSON file.
        catalogue: the server's node catalogue; without one the bundled 0.3.64 catalogue is
            used (and a notice says so when an editor workflow had to be converted).
        seed_inputs: `NODE_ID.INPUT` names that replace the detected seed inputs.

    Raises:
        PresetError: with a one-line message naming the file and what is wrong.
    """
    path = Path(path)
    try:
        return _load(path, catalogue, seed_inputs)
    except PresetError as exc:
        raise PresetError(f"{escape_invalid(path.name)}: {exc}") from None


def preset_from_api(
    api: Mapping[str, Any],
    source: Path,
    catalogue: Catalogue | None = None,
    seed_inputs: Iterable[str | InputRef] | None = None,
) -> Preset:
    """Build a preset from an already decoded API workflow (no file involved)."""
    editor = _Parts(api=validate_api_workflow(api), editor=None, fmt=PresetFormat.api)
    return _finish(editor, source, catalogue, seed_inputs)


class _Parts:
    """What a file yielded before seeds and parameters are worked out."""

    def __init__(
        self,
        api: dict[str, Any],
        editor: dict[str, Any] | None,
        fmt: PresetFormat,
        notices: tuple[str, ...] = (),
    ) -> None:
        self.api, self.editor, self.fmt, self.notices = api, editor, fmt, notices


def preset_from_bytes(
    data: bytes,
    source: Path,
    catalogue: Catalogue | None = None,
    seed_inputs: Iterable[str | InputRef] | None = None,
) -> Preset:
    """Build a preset from a file's content (an upload), its format detected from it.

    Raises:
        PresetError: with a one-line message naming ``source`` and what is wrong.
    """
    try:
        return _from_data(data, source, catalogue, seed_inputs)
    except PresetError as exc:
        raise PresetError(f"{escape_invalid(source.name)}: {exc}") from None


def _load(
    path: Path, catalogue: Catalogue | None, seed_inputs: Iterable[str | InputRef] | None
) -> Preset:
    return _from_data(_read_bytes(path), path, catalogue, seed_inputs)


def _from_data(
    data: bytes,
    source: Path,
    catalogue: Catalogue | None,
    seed_inputs: Iterable[str | InputRef] | None,
) -> Preset:
    if len(data) > MAX_FILE_BYTES:
        raise PresetError(f"the file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB")
    if not data.strip():
        raise PresetError("the file is empty")
    parts = _from_png(data, catalogue) if is_png(data) else _from_json(data, catalogue)
    return _finish(parts, source, catalogue, seed_inputs)


def _finish(
    parts: _Parts,
    source: Path,
    catalogue: Catalogue | None,
    seed_inputs: Iterable[str | InputRef] | None,
) -> Preset:
    check_workflow(parts.api)
    cat = catalogue or Catalogue.bundled()
    if seed_inputs is None:
        seeds = detect_seed_inputs(parts.api, cat)
    else:
        seeds = explicit_seed_inputs(parts.api, cat, seed_inputs)
    return Preset(
        api_workflow=parts.api,
        editor_workflow=parts.editor,
        source=source,
        format=parts.fmt,
        notices=parts.notices,
        seed_inputs=seeds,
        parameters=list_parameters(parts.api, cat, (s.ref for s in seeds)),
        content_hash=workflow_hash(parts.api),
        catalogue_source=cat.version,
    )


def _read_bytes(path: Path) -> bytes:
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise PresetError(f"cannot read the file ({exc.strerror or exc})") from None
    return data


def _from_json(data: bytes, catalogue: Catalogue | None) -> _Parts:
    decoded = _decode_json(data, "the file")
    if is_editor_workflow(decoded):
        return _from_editor(decoded, catalogue, PresetFormat.editor)
    if is_api_workflow(decoded):
        return _Parts(validate_api_workflow(decoded), None, PresetFormat.api)
    raise PresetError("the JSON is neither an API-format nor an editor-format ComfyUI workflow")


def _from_png(data: bytes, catalogue: Catalogue | None) -> _Parts:
    texts = read_text_chunks(data)
    editor = _optional_editor(texts.get("workflow"))
    if "prompt" in texts:
        prompt = _decode_json(texts["prompt"].encode("utf-8"), "the PNG's prompt chunk")
        if not is_api_workflow(prompt):
            raise PresetError("the PNG's prompt chunk is not an API-format workflow")
        return _Parts(validate_api_workflow(prompt), editor, PresetFormat.png)
    if editor is not None:
        parts = _from_editor(editor, catalogue, PresetFormat.png)
        notice = "the PNG had no prompt chunk; its editor workflow was converted"
        return _Parts(parts.api, editor, PresetFormat.png, (notice, *parts.notices))
    raise PresetError("the PNG carries no ComfyUI workflow (no prompt or workflow text chunk)")


def _from_editor(editor: Any, catalogue: Catalogue | None, fmt: PresetFormat) -> _Parts:
    try:
        conversion = convert_editor(editor, catalogue)
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, RecursionError) as exc:
        # A last guard for shapes of untrusted JSON the converter's checks did not foresee.
        raise PresetError(f"the editor workflow is malformed ({shape_fault(exc)})") from None
    api = validate_api_workflow(conversion.api_workflow)
    return _Parts(api, dict(editor), fmt, conversion.notices)


def _optional_editor(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    try:
        decoded = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return dict(decoded) if is_editor_workflow(decoded) else None


def _decode_json(data: bytes, what: str) -> Any:
    try:
        return json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise PresetError(f"{what} is neither JSON nor a PNG (not UTF-8 text)") from None
    except json.JSONDecodeError as exc:
        raise PresetError(f"{what} is not valid JSON (line {exc.lineno}: {exc.msg})") from None
    except (ValueError, RecursionError):
        raise PresetError(f"{what} is not usable JSON (nested too deep or too large)") from None
