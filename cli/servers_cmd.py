"""`batchline servers`: is each configured ComfyUI reachable, what runs it, how busy it is."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from cli.common import open_ledger, print_json, server_urls
from core.comfy.http_errors import plain_reason
from core.comfy.token_store import client_for
from core.errors import BatchlineError

if TYPE_CHECKING:
    import argparse

    from core.comfy import Device

PROBE_SECONDS = 5.0
GIB = 1024**3


def register(subparsers: Any) -> None:
    servers = subparsers.add_parser(
        "servers", help="check each configured ComfyUI: reachable, version, GPU, queue"
    )
    servers.add_argument("--json", action="store_true", help="print JSON")
    servers.set_defaults(func=check_servers)


def check_servers(args: argparse.Namespace) -> int:
    """Exit 0 when every server answers, 1 when one does not."""
    with open_ledger(args) as ledger:
        urls = server_urls(args, ledger)
    reports = asyncio.run(_probe_all(urls))
    if args.json:
        print_json(reports)
    else:
        for report in reports:
            print(_line(report))
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


def _device_text(device: dict[str, Any]) -> str:
    total, free = device["vram_total"], device["vram_free"]
    if not total:
        return str(device["name"])
    return f"{device['name']} ({total / GIB:.0f} GiB, {(free or 0) / GIB:.0f} GiB free)"
