"""`batchline preset add|list|show|remove|versions|restore`: the presets in the ledger."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from cli.common import (
    names_from_user,
    open_ledger,
    print_json,
    server_url,
    short_time,
)
from cli.preset_versions_cmd import register_verbs
from core.batch import stored_preset
from core.batch.varied import value_text
from core.catalogue import Catalogue
from core.comfy.token_store import client_for
from core.errors import ComfyError, ComfyUnreachable
from core.ledger import PresetOutcome
from core.presets import load_preset
from core.presets.checks import check_name
from core.presets.storing import preset_summary, store_preset

if TYPE_CHECKING:
    import argparse

    from core.ledger import PresetRecord
    from core.presets import Parameter, Preset

# /object_info is only worth waiting for when the server answers at once: the read timeout is
# also the whole request's deadline, and the answer is cut at the client's catalogue limit.
CATALOGUE_TIMEOUT = httpx.Timeout(3.0, connect=0.5)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("preset", help="add, list, show, remove and restore presets")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)

    add = verbs.add_parser("add", help="store a workflow file (API JSON, PNG or editor JSON)")
    add.add_argument("file", type=Path, metavar="FILE")
    add.add_argument("--name", help="preset name (default: the file name without extension)")
    add.add_argument("--replace", action="store_true", help="overwrite a preset of that name")
    add.add_argument(
        "--seed-input",
        action="append",
        metavar="NODE.INPUT",
        help="the input(s) a batch varies as seed, instead of the detected ones (repeatable)",
    )
    add.set_defaults(func=add_preset)

    listing = verbs.add_parser("list", help="list the stored presets")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(func=list_presets)

    show = verbs.add_parser("show", help="show a preset: seeds and editable parameters")
    show.add_argument("name", metavar="NAME")
    show.add_argument("--json", action="store_true", help="print JSON (with the API workflow)")
    show.set_defaults(func=show_preset)

    remove = verbs.add_parser("remove", help="forget a preset (its batches keep their workflow)")
    remove.add_argument("name", metavar="NAME")
    remove.set_defaults(func=remove_preset)
    register_verbs(verbs)


# --- add -----------------------------------------------------------------------------------------


def add_preset(args: argparse.Namespace) -> int:
    with open_ledger(args) as ledger:
        catalogue = server_catalogue(server_url(args, ledger))
        preset = load_preset(args.file, catalogue, args.seed_input)
        name = args.name or args.file.stem
        stored = store_preset(
            ledger,
            name,
            preset,
            args.seed_input,
            replace=args.replace,
            hint="choose another with --name",
        )
    if stored.outcome is PresetOutcome.unchanged:
        print(f"unchanged: identical content already stored as {name!r}")
    else:
        print(f"{stored.outcome.value}: preset {name!r} ({len(preset.seed_inputs)} seed inputs)")
        if stored.also_named:
            print(f"note: the same workflow is also stored as {stored.also_named!r}")
    for notice in preset.notices:
        print(f"notice: {notice}")
    return 0


def server_catalogue(url: str) -> Catalogue | None:
    """The server's node catalogue if it answers quickly, else None (the bundled one is used).

    A server that answers but not usefully (too slowly, too much, garbage) is named in a
    notice on stderr; one that is not there is not (working offline is normal).
    """

    async def fetch() -> Catalogue | None:
        async with client_for(url, timeout=CATALOGUE_TIMEOUT) as client:
            raw = await client.object_info()
        return Catalogue.from_object_info(raw, source=f"ComfyUI at {client.base_url}")

    try:
        return asyncio.run(fetch())
    except ComfyUnreachable:
        return None
    except ComfyError as exc:
        print(f"notice: not using the catalogue of ComfyUI at {url}: {exc}", file=sys.stderr)
        return None
    except OSError:
        return None


# --- list, show, remove --------------------------------------------------------------------------


def list_presets(args: argparse.Namespace) -> int:
    with open_ledger(args) as ledger:
        records = ledger.presets.all()
    if args.json:
        print_json([preset_summary(r) for r in records])
        return 0
    if not records:
        print("no presets: add one with `batchline preset add FILE`")
    for record in records:
        nodes = len(record.api_workflow)
        print(f"{record.name}\t{nodes} nodes\tstored by {record.stored_by}\t{_changed(record)}")
    return 0


def _changed(record: PresetRecord) -> str:
    return f"changed {short_time(record.updated_at)} by {record.changed_by}"


def show_preset(args: argparse.Namespace) -> int:
    check_name(args.name)
    with open_ledger(args) as ledger, names_from_user():
        record = ledger.presets.get(args.name)
    preset = preset_of(record)
    if args.json:
        print_json(_details(record, preset))
        return 0
    print(f"preset {record.name} ({len(record.api_workflow)} nodes, from {record.source or '-'})")
    print(f"stored {short_time(record.created_at)} by {record.stored_by}, {_changed(record)}")
    names = {str(p.ref): p.label for p in preset.parameters}
    seeds = ", ".join(_named(str(s.ref), names) for s in preset.seed_inputs) or "none"
    print(f"seed inputs: {seeds}")
    print("parameters:")
    for parameter in preset.parameters:
        print(f"  {_describe(parameter)}")
    return 0


def remove_preset(args: argparse.Namespace) -> int:
    check_name(args.name)
    with open_ledger(args) as ledger, names_from_user():
        ledger.presets.remove(args.name)
    print(f"removed: preset {args.name!r}")
    return 0


def preset_of(record: PresetRecord) -> Preset:
    """The stored preset with its seed inputs (those chosen when it was added, if any)."""
    return stored_preset(record, None, record.info.get("seed_inputs") or None)


def _details(record: PresetRecord, preset: Preset) -> dict[str, Any]:
    return {
        **preset_summary(record),
        "format": record.info.get("format"),
        "notices": record.info.get("notices", []),
        "seed_inputs": [
            {"input": str(s.ref), "minimum": s.minimum, "maximum": s.maximum}
            for s in preset.seed_inputs
        ],
        "parameters": [_parameter_json(p) for p in preset.parameters],
        "api_workflow": record.api_workflow,
        "editor_workflow": record.editor_workflow,
    }


def _parameter_json(parameter: Parameter) -> dict[str, Any]:
    return {
        "input": str(parameter.ref),
        "node_title": parameter.node_title,
        "name": parameter.label,  # as every door names it: "Positive prompt (base) · text"
        "class_type": parameter.class_type,
        "type": parameter.type,
        "value": parameter.value,
        "minimum": parameter.minimum,
        "maximum": parameter.maximum,
        "step": parameter.step,
        "choices": list(parameter.choices),
        "is_seed": parameter.is_seed,
        "colour": parameter.colour,
    }


def _named(key: str, names: dict[str, str]) -> str:
    """``10.noise_seed (KSampler (Advanced) - BASE · noise_seed)``: the id typed, the name read."""
    return f"{key} ({names[key]})" if key in names else key


def _describe(parameter: Parameter) -> str:
    seed = " (seed)" if parameter.is_seed else ""
    title = f" [{parameter.label}]"
    colour = (
        f" ({value_text(parameter.value, colour=True)})"
        if parameter.colour and isinstance(parameter.value, int)
        else ""
    )
    return f"{parameter.ref}{title} {parameter.type} = {parameter.value!r}{colour}{seed}"
