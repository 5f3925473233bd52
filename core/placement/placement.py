"""Which servers can run a job (or a whole batch), and when none can, why, in an artist's words.

A server can run a job when it is connected, has every node class of the job and lists every
model file the job names in the input that names it (ComfyUI's validation refuses any other
value). An input the server does not list as a model input (a custom node's, its list empty) is
not held against it: nothing there says it lacks the file.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Mapping, Sequence

    from core.placement.needs import JobNeeds, ModelNeed
    from core.placement.server_offer import ServerOffer

NAMES_SHOWN = 3


class Lack(StrEnum):
    """What a server lacks: a node class, or a model file."""

    node_class = "node_class"
    model_file = "model_file"


@dataclass(frozen=True)
class Missing:
    """One thing a server lacks (a file's folder, when known, says where it goes)."""

    kind: Lack
    name: str
    folder: str | None = None


@dataclass(frozen=True)
class ServerFit:
    """How one server fits a job (or a batch): whether it is connected, and what it lacks."""

    server: str
    connected: bool
    missing: tuple[Missing, ...] = ()

    @property
    def has_everything(self) -> bool:
        return not self.missing

    @property
    def can_run(self) -> bool:
        return self.connected and self.has_everything


@dataclass(frozen=True)
class Placement:
    """Where one job can run: the fit of every known server, in the order given."""

    fits: tuple[ServerFit, ...]

    @property
    def servers(self) -> tuple[str, ...]:
        """The connected servers that can run the job."""
        return tuple(fit.server for fit in self.fits if fit.can_run)

    @property
    def placeable(self) -> bool:
        return bool(self.servers)


@dataclass(frozen=True)
class BatchFit:
    """How the servers fit a whole batch, before it is queued."""

    fits: tuple[ServerFit, ...]
    jobs: int
    unplaceable: int

    @property
    def ready(self) -> bool:
        """True when one connected server can run every job: queue without asking."""
        return any(fit.can_run for fit in self.fits)


def missing_on(needs: JobNeeds, offer: ServerOffer) -> tuple[Missing, ...]:
    """What `offer`'s server lacks of `needs` (empty when it has everything)."""
    classes = (Missing(Lack.node_class, c) for c in needs.node_classes if not offer.has_class(c))
    files = (
        Missing(Lack.model_file, need.name, need.folder)
        for need in needs.models
        if offer.has_class(need.class_type) and not _lists(offer, need)
    )
    return _sorted({*classes, *files})


def _lists(offer: ServerOffer, need: ModelNeed) -> bool:
    files = offer.files_of(need.model_input)
    return files is None or need.name in files


def place(
    needs: JobNeeds, offers: Mapping[str, ServerOffer], connected: Collection[str]
) -> Placement:
    """The fit of every server of `offers` for one job (`connected`: those connected now)."""
    return Placement(
        tuple(
            ServerFit(name, name in connected, missing_on(needs, offer))
            for name, offer in offers.items()
        )
    )


def fit_batch(
    batch: Sequence[JobNeeds], offers: Mapping[str, ServerOffer], connected: Collection[str]
) -> BatchFit:
    """Each server's fit for a whole batch: what it lacks of any of its jobs."""
    placements = [place(needs, offers, connected) for needs in batch]
    fits = tuple(
        ServerFit(name, name in connected, _union(p.fits[i].missing for p in placements))
        for i, name in enumerate(offers)
    )
    return BatchFit(fits, len(batch), sum(not p.placeable for p in placements))


def _union(missing: Iterable[tuple[Missing, ...]]) -> tuple[Missing, ...]:
    return _sorted({m for some in missing for m in some})


def _sorted(missing: Iterable[Missing]) -> tuple[Missing, ...]:
    """Model files first, then node classes, each by name."""
    return tuple(sorted(missing, key=lambda m: (m.kind, m.name, m.folder or "")))


def placement_text(result: Placement | ServerFit | BatchFit) -> str:
    """The one rendering of placement results, in an artist's words.

    A job no server can run: "no server has sd_xl_refiner_1.0.safetensors"; one server's fit:
    "gpu-1 lacks sd_xl_refiner_1.0.safetensors"; a batch: "gpu-2 has everything; gpu-1 lacks
    sd_xl_refiner_1.0.safetensors". A placeable job reads "" (nothing to explain).
    """
    match result:
        case ServerFit():
            return _fit_text(result)
        case BatchFit():
            return "; ".join(_fit_text(fit) for fit in _best_first(result.fits)) or _NO_SERVER
        case Placement():
            return "" if result.placeable else _why_not(result.fits)


_NO_SERVER = "no server is set up"


def _fit_text(fit: ServerFit) -> str:
    if fit.missing:
        return f"{fit.server} lacks {_names(fit.missing)}" + ("" if fit.connected else _AWAY)
    return f"{fit.server} has everything" + ("" if fit.connected else _AWAY)


_AWAY = " (not connected)"


def _best_first(fits: Sequence[ServerFit]) -> list[ServerFit]:
    return sorted(fits, key=lambda fit: (not fit.can_run, not fit.has_everything))


def _why_not(fits: Sequence[ServerFit]) -> str:
    if not fits:
        return _NO_SERVER
    able = [fit.server for fit in fits if fit.has_everything]
    if able:
        lacked = _union(tuple(m for m in f.missing if _lacked_by_all(m, _here(fits))) for f in fits)
        what = _names(lacked) if lacked else "everything it needs"
        verb, pronoun = ("has", "it is") if len(able) == 1 else ("have", "they are")
        return f"only {_and(able)} {verb} {what}, and {pronoun} not connected"
    nowhere = _union(tuple(m for m in fit.missing if _lacked_by_all(m, fits)) for fit in fits)
    if nowhere:
        return f"no server has {_names(nowhere)}"
    return "no one server has all it needs: " + "; ".join(_fit_text(fit) for fit in fits)


def _lacked_by_all(missing: Missing, fits: Sequence[ServerFit]) -> bool:
    return bool(fits) and all(missing in fit.missing for fit in fits)


def _here(fits: Sequence[ServerFit]) -> list[ServerFit]:
    return [fit for fit in fits if fit.connected]


def _names(missing: Sequence[Missing]) -> str:
    shown = [f"the node {m.name}" if m.kind is Lack.node_class else m.name for m in missing]
    more = len(shown) - NAMES_SHOWN
    return _and(shown[:NAMES_SHOWN] + ([f"{more} more"] if more > 0 else []))


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
