"""The HTTP API inside `batchline serve`: its options, and serving it beside the controller.

``--listen HOST:PORT`` (default 127.0.0.1:8190; another address than loopback needs
``--allow-remote``), ``--no-api``, and the backpressure limits for API clients
(``--max-pending-per-requester``, ``--max-backlog``; the ledger's settings by default). Its
caps on connections and event streams are sized from this process's descriptor limit, raised
first where the system allows (``core.api.connections``).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cli.arg_types import whole
from cli.common import warn
from core.api import ApiConfig, parse_listen, serve_api
from core.api.config import DEFAULT_HOST, DEFAULT_PORT
from core.api.connections import ConnectionCaps, raise_descriptor_limit
from core.controller.backpressure import Limits
from core.errors import InputError

if TYPE_CHECKING:
    import argparse
    from collections.abc import AsyncIterator

    from core.ledger import Ledger


@dataclass(frozen=True)
class ApiPlan:
    """The API to serve, and whether its address was asked for (``--listen``): only then is
    failing to listen there fatal; the default address taken only turns the API off."""

    config: ApiConfig
    asked: bool


def api_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--listen",
        metavar="HOST:PORT",
        help=f"where the HTTP API listens (default {DEFAULT_HOST}:{DEFAULT_PORT}; port 0: any "
        "free port, said in the 'listening on' line)",
    )
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="let --listen be an address other machines can reach (tokens still required)",
    )
    parser.add_argument("--no-api", action="store_true", help="serve no HTTP API")
    parser.add_argument(
        "--max-pending-per-requester",
        type=whole(),
        metavar="N",
        help="refuse (429) a batch that would leave a requester more than N unfinished jobs",
    )
    parser.add_argument(
        "--max-backlog",
        type=whole(),
        metavar="N",
        help="refuse (429) a batch that would leave more than N unfinished jobs in all",
    )


def api_plan(args: argparse.Namespace, ledger: Ledger, servers: int) -> ApiPlan | None:
    """The API `serve` was asked for (None with ``--no-api``, and for `run`)."""
    if getattr(args, "no_api", True):
        return None
    host, port = DEFAULT_HOST, DEFAULT_PORT
    if args.listen is not None:
        host, port = parse_listen(args.listen, args.allow_remote)
    limits = Limits.load(ledger).with_overrides(args.max_pending_per_requester, args.max_backlog)
    caps = ConnectionCaps.for_descriptors(raise_descriptor_limit())
    config = ApiConfig(host, port, limits, max(1, servers), caps)
    return ApiPlan(config, args.listen is not None)


@contextlib.asynccontextmanager
async def api_serving(ledger: Ledger, plan: ApiPlan | None) -> AsyncIterator[str | None]:
    """Serve the planned API while inside; yields its address, or None when there is none."""
    if plan is None:
        yield None
        return
    async with contextlib.AsyncExitStack() as stack:
        address: Any = None
        try:
            address = await stack.enter_async_context(serve_api(ledger, plan.config))
        except InputError as exc:
            if plan.asked:
                raise
            warn(f"{exc}: the HTTP API is off (choose another address with --listen)")
        yield address
