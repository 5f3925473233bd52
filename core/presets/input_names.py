"""The one name of each input of a workflow, as every door shows it to the artist:
"Positive prompt · text", the node's title and the input.

A node's title is its ``_meta.title`` when the artist set one, else its role in the prompt
(positive or negative, by its wiring), else the catalogue's display name, else its class.
Where two inputs would read the same (an SDXL base and refiner: two "Positive prompt ·
text"), each of those, and only those, gets a hint in brackets: the word that tells apart
the titled nodes they feed ("KSampler (Advanced) - BASE" and "... - REFINER" make
"Positive prompt (base) · text" and "(refiner)"), else the node's id ("(node 6)").
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import TYPE_CHECKING, Any

from core.presets.api_format import is_link, node_inputs
from core.presets.prompt_roles import prompt_roles

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from core.catalogue import Catalogue

JOIN = " · "  # between a node's title and its input's name
_PUNCTUATION = " -–—·:|()[]{}/,"


def input_names(api_workflow: Mapping[str, Any], catalogue: Catalogue) -> dict[str, str]:
    """Every ``NODE_ID.INPUT`` of the workflow mapped to the name the artist reads."""
    titles = node_titles(api_workflow, catalogue)
    plain: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for node_id in sorted(api_workflow, key=_sort_key):
        for name in node_inputs(api_workflow[node_id]):
            plain[f"{titles[node_id]}{JOIN}{name}"].append((node_id, name))
    named: dict[str, str] = {}
    consumers = _consumers(api_workflow)
    found: dict[tuple[str, ...], dict[str, str]] = {}  # the hints of each set of twins
    for text, refs in plain.items():
        if len(refs) == 1:
            named[f"{refs[0][0]}.{refs[0][1]}"] = text
            continue
        twins = tuple(node_id for node_id, _ in refs)
        if twins not in found:
            found[twins] = _hints(api_workflow, catalogue, consumers, twins)
        hints = found[twins]
        for node_id, name in refs:
            named[f"{node_id}.{name}"] = f"{titles[node_id]} ({hints[node_id]}){JOIN}{name}"
    return named


def names_of(
    keys: Iterable[str], api_workflow: Mapping[str, Any], catalogue: Catalogue
) -> dict[str, str]:
    """``input_names`` for these keys alone; a key the workflow does not hold (a value set
    on no node of it) is named by its input alone, or in full where two such share it."""
    names = input_names(api_workflow, catalogue)
    keys = list(keys)
    strays = Counter(key.partition(".")[2] or key for key in keys if key not in names)
    for key in keys:
        if key not in names:
            bare = key.partition(".")[2] or key
            names[key] = bare if strays[bare] == 1 else key
    return {key: names[key] for key in keys}


def node_titles(api_workflow: Mapping[str, Any], catalogue: Catalogue) -> dict[str, str]:
    """Each node's title: the artist's, else its prompt role, else its display name or class."""
    roles = prompt_roles(api_workflow, catalogue)
    return {
        node_id: _own_title(api_workflow, catalogue, node_id)
        or roles.get(node_id)
        or _default_title(api_workflow[node_id], catalogue)
        for node_id in api_workflow
    }


def _default_title(node: Mapping[str, Any], catalogue: Catalogue) -> str:
    class_type = str(node.get("class_type"))
    cls = catalogue.get(class_type)
    return cls.display_name if cls and cls.display_name else class_type


def _own_title(api: Mapping[str, Any], catalogue: Catalogue, node_id: str) -> str | None:
    """The title the artist gave the node; None when it only repeats its class's name."""
    node = api[node_id]
    meta = node.get("_meta")
    title = meta.get("title") if isinstance(meta, dict) else None
    if not isinstance(title, str) or not title.strip():
        return None
    if title in (_default_title(node, catalogue), node.get("class_type")):
        return None
    return title


def _hints(
    api: Mapping[str, Any],
    catalogue: Catalogue,
    consumers: Mapping[str, list[str]],
    node_ids: tuple[str, ...],
) -> dict[str, str]:
    """What tells these same-named nodes apart: the part that differs between the titles of
    the nearest titled nodes they feed, when that gives each its own; else their ids."""
    fed = {node_id: _nearest_titled(api, catalogue, consumers, node_id) for node_id in node_ids}
    words = {node_id: title.split() for node_id, title in fed.items() if title}
    if len(words) == len(node_ids):
        prefix = _common_prefix(list(words.values()))
        suffix = _common_prefix([list(reversed(w[prefix:])) for w in words.values()])
        hints = {node_id: _hint_text(w[prefix : len(w) - suffix]) for node_id, w in words.items()}
        if all(hints.values()) and len(set(hints.values())) == len(hints):
            return hints
    return {node_id: f"node {node_id}" for node_id in node_ids}


def _consumers(api: Mapping[str, Any]) -> dict[str, list[str]]:
    """Each node's id mapped to the nodes its outputs are linked to, in id order."""
    consumers: dict[str, list[str]] = defaultdict(list)
    for node_id in sorted(api, key=_sort_key):
        for value in node_inputs(api[node_id]).values():
            if is_link(value):
                consumers[str(value[0])].append(node_id)
    return consumers


def _nearest_titled(
    api: Mapping[str, Any], catalogue: Catalogue, consumers: Mapping[str, list[str]], start: str
) -> str | None:
    """The title of the nearest node downstream of ``start`` that the artist titled (breadth
    first, nodes in id order)."""
    seen, todo = {start}, list(consumers.get(start, ()))
    while todo:
        node_id = todo.pop(0)
        if node_id in seen or node_id not in api:
            continue
        seen.add(node_id)
        title = _own_title(api, catalogue, node_id)
        if title:
            return title
        todo.extend(consumers.get(node_id, ()))
    return None


def _common_prefix(lists: list[list[str]]) -> int:
    count = 0
    while all(len(words) > count for words in lists) and len({w[count] for w in lists}) == 1:
        count += 1
    return count


def _hint_text(words: list[str]) -> str:
    text = " ".join(words).strip(_PUNCTUATION)
    return text.lower() if text.isupper() else text


def name_hints(keys: Sequence[str], names: Mapping[str, str]) -> dict[str, str]:
    """What tells these inputs apart, from their full names (``names``: key -> "title ·
    input"): the words in which their nodes' titles differ ("Positive prompt (base)" ->
    "base", "KSampler (Advanced) - REFINER" -> "refiner"), else each node's id ("node 6").
    Where a short label names an input by itself and two share that name (the batch's title,
    a sheet cell), this is what follows it in brackets."""
    words = {key: names.get(key, "").rpartition(JOIN)[0].split() for key in keys}
    if all(words.values()):
        start = _common_prefix(list(words.values()))
        end = _common_prefix([w[start:][::-1] for w in words.values()])
        hints = {key: _twin_text(w[start : len(w) - end]) for key, w in words.items()}
        if all(hints.values()) and len(set(hints.values())) == len(hints):
            return hints
    return {key: f"node {key.partition('.')[0]}" for key in keys}


def _twin_text(words: list[str]) -> str:
    """The words that differ, without the punctuation around them: "(base)" -> "base",
    "- REFINER" -> "refiner"."""
    text = " ".join(words).strip(" -–—·:|,")
    if len(text) > 1 and text[0] + text[-1] in ("()", "[]", "{}") and text.count(text[0]) == 1:
        text = text[1:-1].strip()
    one_word = text.istitle() and " " not in text  # "Positive", "BASE": said in lowercase
    return text.lower() if text.isupper() or one_word else text


def _sort_key(node_id: str) -> tuple[int, ...]:
    return tuple(int(p) if p.isdigit() else -1 for p in str(node_id).split(":"))
