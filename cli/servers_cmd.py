"""`batchline servers`: is each configured ComfyUI reachable, what runs it, how busy it is, and
what it can run (its node classes and model files, as the controller last read them)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from cli.common import open_ledger, print_json, server_urls, short_time, warn
from core.comfy.http_errors import plain_reason
from core.comfy.token_store import client_for
from core.controller.commands import LedgerCommands
from core.controller.placing_said import listing_counts, offer_json
from core.errors import BatchlineError

if TYPE_CHECKING:
    import argparse

    from core.comfy import Device
    from core.ledger import Ledger
    from core.ledger.server_offers import StoredOffer

PROBE_SECONDS = 5.0
GIB = 1024**3


def register(subparsers: Any) -> None:
    servers = subparsers.add_parser(
        "servers", help="check each configured ComfyUI: reachable, version, GPU, queue"
    )
    servers.add_argument("--json", action="store_true", help="print JSON")
    servers.add_argument(
        "--models", action="store_true", help="list each server's model files (not only counts)"
    )
    servers.add_argument(
        "--refresh",
        action="store_true",
        help="ask the controller to read every server's models again",
    )
    servers.set_defaults(func=check_servers)


def check_servers(args: argparse.Namespace) -> int:
    """Exit 0 when every server answers, 1 when one does not."""
    with open_ledger(args) as ledger:
        urls = server_urls(args, ledger)
        if args.refresh:
            _refresh(ledger)
        stored = ledger.server_offers.all()
    reports = asyncio.run(_probe_all(urls))
    for report in reports:
        report["offer"] = offer_json(report["server"], stored.get(report["server"]))
    if args.json:
        print_json(reports)
    else:
        for report in reports:
            print(_line(report))
            print("\n".join(_offer_lines(report["offer"], stored, files=args.models)))
    return 0 if all(report["reachable"] for report in reports) else 1


async def _probe_all(urls: list[str]) -> list[dict[str, Any]]:
    return list(await asyncio.gather(*(_probe(url) for url in urls)))


async def _probe(url: str) -> dict[str, Any]:
    try:
        async with client_for(url) as client, asyncio.timeout(PROBE_SECONDS):
            stats = await client.system_stats()
            queue = await client.queue()
    except (BatchlineError, TimeoutError) as exc:
        error = str(exc) or f"no answer within {PROBE_SECONDS:g} s"
        reason = plain_reason(exc, PROBE_SECONDS) or error
        return {"server": url, "reachable": False, "reason": reason, "error": error}
    return {
        "server": url,
        "reachable": True,
        "version": stats.comfyui_version,
        "devices": [_device(d) for d in stats.devices],
        "running": len(queue.running),
        "pending": len(queue.pending),
    }


def _device(device: Device) -> dict[str, Any]:
    return {
        "name": device.name,
        "type": device.type,
        "vram_total": device.vram_total,
        "vram_free": device.vram_free,
    }


def _line(report: dict[str, Any]) -> str:
    if not report["reachable"]:
        detail = f" ({report['error']})" if report["reason"] != report["error"] else ""
        return f"{report['server']}  unreachable: {report['reason']}{detail}"
    devices = ", ".join(_device_text(d) for d in report["devices"]) or "no device reported"
    return (
        f"{report['server']}  ComfyUI {report['version'] or '?'}  {devices}  "
        f"queue {report['running']} running, {report['pending']} waiting"
    )


def _refresh(ledger: Ledger) -> None:
    """Ask the controller to read the servers' models again (``LedgerCommands.refresh_models``),
    and say so."""
    LedgerCommands(ledger).refresh_models()
    if ledger.lease.taken():
        warn("asked the controller to read every server's models again")
    else:
        warn("asked for every server's models to be read again: the next controller does it")


def _offer_lines(offer: dict[str, Any], stored: dict[str, StoredOffer], files: bool) -> list[str]:
    """What the server can run, as last read: when, how many node classes, its model files."""
    if not offer["known"]:
        return ["  models: not read yet (the controller reads them when it connects)"]
    read_at = short_time(stored[offer["server"]].read_at)
    lines = [f"  read at {read_at}: {offer['node_classes']} node classes"]
    listing: dict[str, list[str]] = offer["models"]
    if not files:
        return [*lines, f"  models: {listing_counts(listing)}"]
    for folder, names in listing.items():
        lines.append(f"  {folder} ({len(names)}):")
        lines += [f"    {name}" for name in names]
    return lines


def _device_text(device: dict[str, Any]) -> str:
    total, free = device["vram_total"], device["vram_free"]
    if not total:
        return str(device["name"])
    return f"{device['name']} ({total / GIB:.0f} GiB, {(free or 0) / GIB:.0f} GiB free)"
