"""Where jobs can run, as every door reads it: what a job needs (from its batch's stored workflow
and its values), why a pending job waits when no connected server can run it, and how the
servers fit a batch before it is queued.

It reads the servers' offers the controller stored in the ledger (`ledger.server_offers`), and
which servers are connected from the status the running controller published. With no
controller running, every server whose offer is known counts as connected: the job waits for
the controller (which other words say), and placement only speaks when no known server has
what it needs. A connected server whose offer is not read yet may still run a job: nothing is
said against it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from core.batch.workflow import build_workflow
from core.controller.published import read_published
from core.controller.status import Connection
from core.ledger.settings import Settings
from core.placement.model_inputs import ModelInput, is_model_file, known_folder
from core.placement.needs import JobNeeds, job_needs
from core.placement.placement import BatchFit, Placement, fit_batch, place, placement_text

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Mapping

    from core.ledger import JobRecord, Ledger
    from core.placement.server_offer import ServerOffer

# The connections under which a server takes jobs (a dropped WebSocket alone does not stop it).
TAKING = frozenset({Connection.connected, Connection.reconnecting})

_NeedsKey = tuple[str, tuple[tuple[str, str], ...]]


@dataclass
class _Base:
    """One workflow's own needs, and which of its inputs a job's values could change them by."""

    workflow: dict[str, Any]
    model_inputs: frozenset[str]  # "NODE_ID.INPUT" keys of inputs that name model files


class NeedsCache:
    """Each job's needs, worked out once per workflow and per values that name models.

    A job's values change its needs only where they set an input that names a model file (a
    loader's input, or a value that is a file): a seed or prompt sweep shares one entry.
    """

    def __init__(self) -> None:
        self._bases: dict[str, _Base] = {}
        self._needs: dict[_NeedsKey, JobNeeds] = {}

    def needs(
        self, workflow_hash: str, workflow: Mapping[str, Any], params: Mapping[str, Any]
    ) -> JobNeeds:
        """The needs of ``workflow`` (stored under ``workflow_hash``) with ``params`` applied."""
        base = self._bases.get(workflow_hash)
        if base is None:
            base = self._bases[workflow_hash] = _base(workflow)
        relevant = {
            key: value
            for key, value in params.items()
            if key in base.model_inputs or is_model_file(value)
        }
        key = (workflow_hash, tuple(sorted((k, repr(v)) for k, v in relevant.items())))
        found = self._needs.get(key)
        if found is None:
            found = self._needs[key] = job_needs(build_workflow(base.workflow, relevant))
        return found

    def knows(self, workflow_hash: str) -> bool:
        return workflow_hash in self._bases


def _base(workflow: Mapping[str, Any]) -> _Base:
    keys = {f"{need.node_id}.{need.input}" for need in job_needs(workflow).models} | {
        f"{node_id}.{name}"
        for node_id, node in workflow.items()
        if isinstance(node, dict) and isinstance(node.get("inputs"), dict)
        for name in node["inputs"]
        if known_folder(ModelInput(str(node.get("class_type")), str(name))) is not None
    }
    return _Base(dict(workflow), frozenset(keys))


class NeedsReader:
    """The needs of jobs of one ledger: batches' workflows read once, needs cached."""

    def __init__(self, ledger: Ledger, cache: NeedsCache | None = None) -> None:
        self.ledger = ledger
        self.cache = cache or NeedsCache()
        self._workflow_of: dict[str, str] = {}  # batch id -> workflow hash

    def of(self, batch_id: str, params: Mapping[str, Any]) -> JobNeeds:
        """The needs of a job of ``batch_id`` with ``params``."""
        hash_ = self._workflow_of.get(batch_id)
        if hash_ is None:
            hash_ = self._workflow_of[batch_id] = self.ledger.batch(batch_id).workflow_hash
        workflow = {} if self.cache.knows(hash_) else self.ledger.workflow(hash_)
        return self.cache.needs(hash_, workflow, params)

    def of_job(self, job: JobRecord) -> JobNeeds:
        return self.of(job.batch, job.params)


def job_needs_of(ledger: Ledger, job: JobRecord, reader: NeedsReader | None = None) -> JobNeeds:
    """What ``job`` needs of a server (its batch's workflow with its values)."""
    return (reader or NeedsReader(ledger)).of_job(job)


@dataclass(frozen=True)
class Servers:
    """The servers' offers as stored, and those connected now (see the module's docstring)."""

    offers: Mapping[str, ServerOffer]
    connected: frozenset[str]
    unread: frozenset[str] = field(default_factory=frozenset)  # connected, offer not read yet

    def place(self, needs: JobNeeds) -> Placement:
        return place(needs, self.offers, self.connected)

    def why_waiting(self, needs: JobNeeds) -> str:
        """ "" when a connected server can run it (or one whose offer is not read yet might);
        else why not, in the artist's words."""
        placement = self.place(needs)
        if placement.placeable or self.unread:
            return ""
        return placement_text(placement)

    def batch_fit(self, batch: Iterable[JobNeeds]) -> BatchFit:
        return fit_batch(list(batch), self.offers, self.connected)


def servers_now(ledger: Ledger, configured: Collection[str] | None = None) -> Servers:
    """The servers' stored offers and which are connected (from the published status).

    With a controller running, its servers; else ``configured`` (the settings' when None, all
    stored offers when the settings name none of them), all taken as connected.
    """
    stored = {url: item.offer for url, item in ledger.server_offers.all().items()}
    published = read_published(ledger)
    live = published is not None and not published.stopped and not published.silent(time.time())
    if published is not None and live and published.status.servers:
        servers = published.status.servers
        names = [s.server for s in servers]
        taking = {s.server for s in servers if s.connection in TAKING}
        offers = {name: stored[name] for name in names if name in stored}
        return Servers(offers, frozenset(taking & offers.keys()), frozenset(taking - offers.keys()))
    if configured is None:
        configured = Settings.load(ledger).servers
    offers = {name: stored[name] for name in configured if name in stored} or stored
    return Servers(offers, frozenset(offers))


def why_waiting(ledger: Ledger, job: JobRecord, servers: Servers | None = None) -> str:
    """ "" when some connected server can run ``job``; else why it waits ("no server has
    sd_xl_refiner_1.0.safetensors"). Pass ``servers`` (``servers_now``) for many jobs."""
    return (servers or servers_now(ledger)).why_waiting(job_needs_of(ledger, job))


def batch_fit(
    ledger: Ledger, batch: Iterable[JobNeeds], servers: Servers | None = None
) -> BatchFit:
    """Per server, what it lacks of a batch's jobs, before it is queued (``placement_text``
    says it: "gpu-2 has everything; gpu-1 lacks sd_xl_refiner_1.0.safetensors")."""
    return (servers or servers_now(ledger)).batch_fit(batch)


def spec_needs(workflow: Mapping[str, Any], params: Iterable[Mapping[str, Any]]) -> list[JobNeeds]:
    """The needs of jobs not queued yet (a workflow and each job's values), for ``batch_fit``."""
    cache = NeedsCache()
    return [cache.needs("", workflow, p) for p in params]
