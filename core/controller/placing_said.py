"""What every door says of placement, in one set of words: per server what a batch lacks before
or as it is queued ("127.0.0.1:8189 has everything; 127.0.0.1:8188 lacks
sd_xl_refiner_1.0.safetensors"), why each pending job waits, and each server's model lists.

Built on ``core.controller.placing`` (which reads the stored offers and the connected servers):
this module only names the servers as the window and the command line show them (``host_text``)
and shapes the results as text and JSON, so that the CLI, the API and the window say the same.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from core.controller.placing import NeedsReader, Servers, servers_now, spec_needs
from core.job_state import JobState
from core.ledger.job_json import iso
from core.placement.placement import BatchFit, Placement, ServerFit, placement_text

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Mapping

    from core.ledger import JobRecord, Ledger
    from core.ledger.server_offers import StoredOffer
    from core.placement.needs import JobNeeds


def host_text(url: str) -> str:
    """``http://127.0.0.1:8188`` -> ``127.0.0.1:8188`` (what an artist recognises)."""
    return url.split("://", 1)[-1].rstrip("/")


def _short(fit: ServerFit) -> ServerFit:
    return replace(fit, server=host_text(fit.server))


def said(result: Placement | ServerFit | BatchFit) -> str:
    """``placement_text`` with each server named by its host and port."""
    match result:
        case ServerFit():
            return placement_text(_short(result))
        case BatchFit() | Placement():
            return placement_text(replace(result, fits=tuple(map(_short, result.fits))))


# --- a batch, before or as it is queued --------------------------------------------------------


@dataclass(frozen=True)
class BatchPlacement:
    """How the servers fit a batch, and what to say of it.

    ``known`` is False while no server's offer is read (or a connected one's is not yet): then
    nothing is said against the batch.
    """

    fit: BatchFit
    known: bool

    @property
    def runs(self) -> bool:
        """Every job can run on a connected server (one server for all, or each its own), or
        nothing is known against it: queue without asking."""
        return not self.known or self.fit.ready or self.fit.unplaceable == 0

    def text(self) -> str:
        """Per server what the batch lacks; "" when nothing is known."""
        return said(self.fit) if self.known else ""

    def warning(self) -> str:
        """The plain sentence when some jobs cannot run anywhere now; else ""."""
        if self.runs:
            return ""
        jobs = self.fit.unplaceable
        some = "any of its jobs" if jobs == self.fit.jobs else f"{jobs} of its jobs"
        return f"no server can run {some} now ({self.text()}): they wait until one can"

    def to_json(self) -> dict[str, Any]:
        return {
            "known": self.known,
            "runs": self.runs,
            "text": self.text() or None,
            "unplaceable": self.fit.unplaceable if self.known else 0,
            "servers": [_fit_json(fit) for fit in self.fit.fits],
        }


def _fit_json(fit: ServerFit) -> dict[str, Any]:
    return {
        "server": fit.server,
        "connected": fit.connected,
        "has_everything": fit.has_everything,
        "missing": [{"kind": str(m.kind), "name": m.name, "folder": m.folder} for m in fit.missing],
    }


def spec_placement(
    ledger: Ledger,
    workflow: Mapping[str, Any],
    params: Iterable[Mapping[str, Any]],
    servers: Servers | None = None,
) -> BatchPlacement:
    """The fit of jobs not queued yet (the composer's, before it asks)."""
    return _placement(servers or servers_now(ledger), spec_needs(workflow, params))


def batch_placement(
    ledger: Ledger, job_ids: Iterable[str], servers: Servers | None = None
) -> BatchPlacement:
    """The fit of jobs just queued (what ``batchline queue`` and the API's POST say)."""
    reader = NeedsReader(ledger)
    needs = [reader.of_job(ledger.job(job_id)) for job_id in job_ids]
    return _placement(servers or servers_now(ledger), needs)


def _placement(servers: Servers, needs: list[JobNeeds]) -> BatchPlacement:
    return BatchPlacement(servers.batch_fit(needs), bool(servers.offers) and not servers.unread)


# --- why pending jobs wait ---------------------------------------------------------------------


class WaitingReasons:
    """Why each pending job waits, read once per refresh: one ``servers_now``, needs cached.

    Keep one per view and call ``refresh()`` when the servers may have changed (each status);
    ``of(job)`` is then cheap for as many jobs as a table shows.
    """

    def __init__(self, ledger: Ledger, configured: Collection[str] | None = None) -> None:
        self.ledger = ledger
        self._configured = configured  # without a controller, these servers (servers_now)
        self._reader = NeedsReader(ledger)
        self._servers: Servers | None = None
        self._said: dict[JobNeeds, str] = {}

    def refresh(self) -> bool:
        """Read the servers again (their offers and which are connected); whether they changed
        (what was said may then have changed too)."""
        servers = servers_now(self.ledger, self._configured)
        if servers == self._servers:
            return False
        self._servers = servers
        self._said.clear()
        return True

    @property
    def read(self) -> bool:
        """Whether the servers were read (``refresh``, or the first ``of``)."""
        return self._servers is not None

    def of(self, job: JobRecord) -> str:
        """Why ``job`` waits ("no server has sd_xl_refiner_1.0.safetensors"); "" when it is not
        pending, some connected server can run it, or no server's offer is known (nothing is
        known against it)."""
        if job.state is not JobState.pending:
            return ""
        if self._servers is None:
            self.refresh()
        assert self._servers is not None
        if not self._servers.offers or self._servers.unread:
            return ""
        needs = self._reader.of_job(job)
        found = self._said.get(needs)
        if found is None:
            placement = self._servers.place(needs)
            found = self._said[needs] = "" if placement.placeable else said(placement)
        return found


# A pending job's reason in a cell too narrow for the files (the table's, the sheet's).
NO_SERVER_SHORT = "no server can run it"


def waiting_text(reason: str) -> str:
    """A waiting reason as a line says it: "waiting: no server has ..."."""
    return f"waiting: {reason}" if reason else ""


def with_waiting(data: dict[str, Any], job: JobRecord, reasons: WaitingReasons) -> dict[str, Any]:
    """A job's JSON (``job_json``) with why it waits (``waiting_for``: null when it does not)."""
    data["waiting_for"] = reasons.of(job) or None
    return data


# --- each server's model lists -----------------------------------------------------------------


def listing_counts(listing: Mapping[str, list[str]]) -> str:
    """``checkpoints 2, loras 5`` (folders in order, the empty ones left out), or "no model
    files"."""
    counts = [f"{folder} {len(files)}" for folder, files in listing.items() if files]
    return ", ".join(counts) or "no model files"


def offer_json(server: str, stored: StoredOffer | None) -> dict[str, Any]:
    """What ``server`` can run, as stored: known, when read, node classes, files per folder."""
    if stored is None:
        return {"server": server, "known": False, "read_at": None, "node_classes": 0, "models": {}}
    return {
        "server": server,
        "known": True,
        "read_at": iso(stored.read_at),
        "node_classes": len(stored.offer.node_classes),
        "models": stored.offer.listing(),
    }
