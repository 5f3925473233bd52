"""Wildcards in a text input, expanded by Batchline before anything is sent, so they work on
every server (ComfyUI expands ``{a|b}`` only in its browser).

The Dynamic Prompts syntax: ``{a|b|c}`` one of them, ``{2$$a|b|c}`` two distinct ones joined by
", ", ``{1-2$$a|b|c}`` one or two, ``__name__`` one line of ``name.txt`` in the wildcards folder
(lines may hold wildcards and braces in turn; blank lines and ``#`` comments are skipped), and
``\\{``, ``\\}``, ``\\|`` for the literal characters. Either **random**, seeded by the job's seed
(the same seed gives the same text: "Queue again" reproduces it), or **combinatorial** (every
choice a job, in a stable order: options as written, the first wildcard varying slowest).

Everything is bounded before it is built: nesting (braces and included files together), the
number of combinatorial expansions (counted without building them) and the longest text a
template can give are refused with a CompositionError naming the cause, never a hang.
"""

from __future__ import annotations

import functools
import itertools
import random
import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, TypeAlias

from core.batch.text_lists import read_text
from core.errors import CompositionError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from pathlib import Path

MAX_DEPTH = 8
MAX_EXPANSIONS = 10_000
MAX_LENGTH = 10_000
MAX_FILE_BYTES = 1024 * 1024
COUNT_CEILING = 10**15
SEPARATOR = ", "

_NAME = re.compile(r"__([A-Za-z0-9][\w\-/]*?)__")
_RANGE = re.compile(r"(\d+)?(?:(-)(\d+)?)?\$\$")
_JOINER = re.compile(r"([^{}|$]*)\$\$")
_ESCAPES = frozenset("{}|")


class WildcardMode(StrEnum):
    """How a text input's wildcards become texts, chosen per input."""

    random = "random"
    combinatorial = "combinatorial"


@dataclass(frozen=True)
class _Choice:
    """``{lo-hi$$a|b|c}``: between ``lo`` and ``hi`` distinct options, joined by ``joiner``
    (``{2$$ and $$a|b|c}``; ", " when not given)."""

    options: tuple[_Seq, ...]
    lo: int = 1
    hi: int = 1
    joiner: str = SEPARATOR


@dataclass(frozen=True)
class _Ref:
    """``__name__``: one line of ``name.txt``."""

    name: str


_Node: TypeAlias = str | _Choice | _Ref
_Seq: TypeAlias = tuple[_Node, ...]


def has_wildcards(text: str) -> bool:
    """Whether ``text`` holds anything to expand (a brace or a ``__name__``)."""
    return "{" in text or "}" in text or "\\|" in text or _NAME.search(text) is not None


def escaped(text: str) -> str:
    """``text`` with its braces and bars escaped: a resolved text sent again as it is (a
    literal ``{`` it holds is not read as a wildcard)."""
    return "".join(f"\\{char}" if char in _ESCAPES else char for char in text)


# --- parsing ----------------------------------------------------------------------------------


class _Parser:
    """Recursive descent over one text; ``where`` names it in errors (the input or a file)."""

    def __init__(self, text: str, where: str) -> None:
        self.text = text
        self.where = where
        self.pos = 0

    def sequence(self, depth: int, inside: bool) -> _Seq:
        """Nodes up to the end, or (inside braces) up to the next ``|`` or ``}``."""
        nodes: list[_Node] = []
        literal: list[str] = []
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char == "\\" and self.text[self.pos + 1 : self.pos + 2] in _ESCAPES:
                literal.append(self.text[self.pos + 1])
                self.pos += 2
            elif char == "{":
                self._flush(literal, nodes)
                self.pos += 1
                nodes.append(self._choice(depth + 1))
            elif char == "}" and not inside:
                raise CompositionError(f"{self.where}: a '}}' closes no '{{'")
            elif char in "|}" and inside:
                break
            elif (match := _NAME.match(self.text, self.pos)) is not None:
                self._flush(literal, nodes)
                nodes.append(_Ref(match.group(1)))
                self.pos = match.end()
            else:
                literal.append(char)
                self.pos += 1
        self._flush(literal, nodes)
        return tuple(nodes)

    def _choice(self, depth: int) -> _Choice:
        if depth > MAX_DEPTH:
            raise CompositionError(f"{self.where}: a wildcard nests deeper than {MAX_DEPTH}")
        lo, hi, joiner = self._counts()
        options = [self.sequence(depth, inside=True)]
        while self.pos < len(self.text) and self.text[self.pos] == "|":
            self.pos += 1
            options.append(self.sequence(depth, inside=True))
        if self.pos >= len(self.text):
            raise CompositionError(f"{self.where}: a '{{' is never closed")
        self.pos += 1
        return _Choice(tuple(options), min(lo, len(options)), min(hi, len(options)), joiner)

    def _counts(self) -> tuple[int, int, str]:
        """The ``N$$``, ``N-M$$`` or ``-M$$`` prefix of a choice (how many options it takes; one
        when not given), and then ``TEXT$$`` (what joins them)."""
        match = _RANGE.match(self.text, self.pos)
        if match is None:
            return 1, 1, SEPARATOR
        self.pos = match.end()
        low, dash, high = match.groups()
        lo = int(low) if low else 1
        hi = (int(high) if high else MAX_EXPANSIONS) if dash else lo
        if hi < lo:
            raise CompositionError(f"{self.where}: the range {match.group(0)} is backwards")
        joiner = _JOINER.match(self.text, self.pos)
        if joiner is None:
            return lo, hi, SEPARATOR
        self.pos = joiner.end()
        return lo, hi, joiner.group(1)

    @staticmethod
    def _flush(literal: list[str], nodes: list[_Node]) -> None:
        if literal:
            nodes.append("".join(literal))
            literal.clear()


def _parse(text: str, where: str) -> _Seq:
    return _Parser(text, where).sequence(0, inside=False)


# --- the folder -------------------------------------------------------------------------------


@dataclass
class _Folder:
    """The wildcards folder's files, each read, checked and parsed once."""

    folder: Path | None
    files: dict[str, _Choice] = field(default_factory=dict)

    def choice(self, name: str) -> _Choice:
        if name not in self.files:
            self.files[name] = self._load(name)
        return self.files[name]

    def _load(self, name: str) -> _Choice:
        shown = f"{name}.txt"
        if self.folder is None:
            raise CompositionError(f"__{name}__ needs a wildcards folder (Settings)")
        path = self._path(shown)
        text = read_text(path, MAX_FILE_BYTES, "the wildcard file ")
        lines = [line.strip() for line in text.splitlines()]
        options = tuple(
            _parse(line, str(path)) for line in lines if line and not line.startswith("#")
        )
        if not options:
            raise CompositionError(f"the wildcard file {path} has no lines to choose from")
        return _Choice(options)

    def _path(self, shown: str) -> Path:
        """``name.txt`` in the folder: a regular file whose real path is inside it."""
        assert self.folder is not None
        root = self.folder.resolve()
        path = (root / shown).resolve()
        if not path.is_relative_to(root):
            raise CompositionError(f"the wildcard file {shown!r} is outside {self.folder}")
        if not path.is_file():
            raise CompositionError(f"no wildcard file {shown!r} in {self.folder}")
        return path


# --- a parsed template ------------------------------------------------------------------------


@dataclass(frozen=True)
class _Measure:
    """What a node can give without building it: expansions and the longest text (both
    capped at COUNT_CEILING), and how deep its wildcards nest (files included)."""

    count: int
    longest: int
    height: int


class Template:
    """A text input's wildcards, parsed and checked against the limits once."""

    def __init__(self, text: str, folder: Path | None = None, where: str = "the text") -> None:
        self.text = text
        self._folder = _Folder(folder)
        self._seq = _parse(text, where)
        self._files: dict[str, _Measure] = {}
        self._measure = self._seq_measure(self._seq, ())
        if self._measure.longest > MAX_LENGTH:
            raise CompositionError(
                f"{where} can expand to {self._measure.longest:,} characters,"
                f" more than {MAX_LENGTH:,}"
            )

    def count(self) -> int:
        """How many texts the combinatorial mode gives (at most COUNT_CEILING, not built)."""
        return self._measure.count

    def random_text(self, seed: int, salt: str = "") -> str:
        """One text chosen by ``seed``: the same seed (and salt) always gives the same text.
        ``salt`` (such as the input's name) keeps two inputs with one seed independent."""
        rng = random.Random(f"{seed}\x00{salt}")
        return "".join(self._random_seq(self._seq, rng))

    def every_text(self, limit: int = MAX_EXPANSIONS) -> list[str]:
        """Every text, in a stable order; refused when there are more than ``limit``."""
        count = self.count()
        if count > limit:
            more = "more than " if count >= COUNT_CEILING else ""
            raise CompositionError(f"this expands to {more}{count:,} prompts, more than {limit:,}")
        return list(self._every_seq(self._seq))

    def examples(self, mode: WildcardMode, seed: int, count: int = 3, salt: str = "") -> list[str]:
        """A few texts for the composer's preview: the first ``count`` combinatorial ones
        (built lazily, however many there are), or those of seeds ``seed``, ``seed + 1`` ...
        (each distinct text once, in order)."""
        if mode is WildcardMode.combinatorial:
            return list(itertools.islice(self._every_seq(self._seq), count))
        return list(dict.fromkeys(self.random_text(seed + step, salt) for step in range(count)))

    # measuring: counts, lengths, nesting, files including themselves

    def _seq_measure(self, seq: _Seq, chain: tuple[str, ...]) -> _Measure:
        count, longest, height = 1, 0, 0
        for node in seq:
            part = self._node_measure(node, chain)
            count = min(count * part.count, COUNT_CEILING)
            longest = min(longest + part.longest, COUNT_CEILING)
            height = max(height, part.height)
        return _Measure(count, longest, height)

    def _node_measure(self, node: _Node, chain: tuple[str, ...]) -> _Measure:
        if isinstance(node, str):
            return _Measure(1, len(node), 0)
        if isinstance(node, _Ref):
            return self._file_measure(node.name, chain)
        parts = [self._seq_measure(option, chain) for option in node.options]
        height = 1 + max(part.height for part in parts)
        if height > MAX_DEPTH:
            raise CompositionError(f"a wildcard nests deeper than {MAX_DEPTH}")
        return _Measure(_picks(node, [p.count for p in parts]), _longest(node, parts), height)

    def _file_measure(self, name: str, chain: tuple[str, ...]) -> _Measure:
        if name in chain:
            raise CompositionError(f"the wildcard file '{name}.txt' includes itself")
        if len(chain) >= MAX_DEPTH:
            raise CompositionError(f"a wildcard nests deeper than {MAX_DEPTH} (files included)")
        if name not in self._files:
            self._files[name] = self._node_measure(self._folder.choice(name), (*chain, name))
        return self._files[name]

    # building

    def _random_seq(self, seq: _Seq, rng: random.Random) -> Iterator[str]:
        for node in seq:
            if isinstance(node, str):
                yield node
                continue
            choice = self._choice(node)
            picked = rng.sample(range(len(choice.options)), rng.randint(choice.lo, choice.hi))
            yield choice.joiner.join(
                "".join(self._random_seq(choice.options[i], rng)) for i in picked
            )

    def _every_seq(self, seq: _Seq) -> Iterator[str]:
        """Every text of ``seq``, lazily: nothing larger than one text is held."""
        factories = [functools.partial(self._every_node, node) for node in seq]
        for parts in _product(factories):
            yield "".join(parts)

    def _every_node(self, node: _Node) -> Iterator[str]:
        if isinstance(node, str):
            yield node
            return
        choice = self._choice(node)
        for size in range(choice.lo, choice.hi + 1):
            for subset in itertools.combinations(choice.options, size):
                factories = [functools.partial(self._every_seq, option) for option in subset]
                for parts in _product(factories):
                    yield choice.joiner.join(parts)

    def _choice(self, node: _Choice | _Ref) -> _Choice:
        return self._folder.choice(node.name) if isinstance(node, _Ref) else node


def _product(factories: Sequence[Callable[[], Iterator[str]]]) -> Iterator[list[str]]:
    """itertools.product without holding its factors: each factor is restarted from its
    factory instead of kept, and the walk is a loop (a long template nests no generators)."""
    if not factories:
        yield []
        return
    iterators = [factories[0]()]
    current: list[str] = []
    while iterators:
        try:
            current.append(next(iterators[-1]))
        except StopIteration:
            iterators.pop()
            if current:
                current.pop()
            continue
        if len(current) == len(factories):
            yield list(current)
            current.pop()
        else:
            iterators.append(factories[len(current)]())


def _picks(choice: _Choice, counts: list[int]) -> int:
    """How many texts a choice gives: for each size r, the sum over r-option subsets of the
    product of their counts (the elementary symmetric sums, by one pass), capped."""
    sums = [1] + [0] * choice.hi
    for count in counts:
        for size in range(choice.hi, 0, -1):
            sums[size] = min(sums[size] + sums[size - 1] * count, COUNT_CEILING)
    return min(sum(sums[choice.lo : choice.hi + 1]), COUNT_CEILING)


def _longest(choice: _Choice, parts: list[_Measure]) -> int:
    """The longest text a choice can give: its ``hi`` longest options and their separators."""
    longest = sorted((p.longest for p in parts), reverse=True)[: choice.hi]
    return sum(longest) + len(choice.joiner) * max(len(longest) - 1, 0)


def count_expansions(text: str, folder: Path | None = None) -> int:
    """How many prompts ``text`` gives in combinatorial mode, without building them."""
    return Template(text, folder).count()


def expand_random(text: str, seed: int, folder: Path | None = None, salt: str = "") -> str:
    """``text`` with each wildcard resolved by ``seed`` (reproducible)."""
    return Template(text, folder).random_text(seed, salt)


def expand_all(text: str, folder: Path | None = None, limit: int = MAX_EXPANSIONS) -> list[str]:
    """Every prompt ``text`` gives, in a stable order; refused past ``limit``."""
    return Template(text, folder).every_text(limit)
