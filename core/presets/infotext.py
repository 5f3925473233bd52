"""A1111's ``parameters`` text ("infotext"), written and read as stable-diffusion-webui does.

The text is the prompt, a ``Negative prompt: ...`` line when there is one, and one last line
of ``Key: value`` pairs joined by ``", "`` ("Steps: 20, Sampler: Euler a, Schedule type:
Karras, CFG scale: 7, Seed: 42, Size: 512x768, Model: name"); a value holding a comma, a colon
or a line break is written as a JSON string (A1111's ``infotext_utils.quote``). Reading
follows A1111's ``parse_generation_parameters``: the last line is the pairs' line only when it
holds at least three pairs. LoRAs are ``<lora:name:weight>`` tags in the prompt, as the artist
types them in A1111; they are kept apart here (``Infotext.loras``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

NEGATIVE = "Negative prompt:"
# A1111's own pattern for one pair (modules/infotext_utils.py `re_param_code`).
_PAIR = re.compile(r'\s*(\w[\w \-/]+):\s*("(?:\\.|[^\\"])+"|[^,]*)(?:,|$)')
_LORA = re.compile(r"<lora:([^:<>]+):([^:<>]+)>")
_SIZE = re.compile(r"^(\d+)x(\d+)$")
MIN_PAIRS = 3  # fewer on the last line: it is part of the prompt (A1111's rule)


@dataclass(frozen=True)
class Infotext:
    """A picture's parameters as A1111 writes them.

    ``params`` holds the last line's pairs in their order, each value as written (unquoted);
    ``loras`` the ``<lora:name:weight>`` tags of the prompt, which ``prompt`` is without.
    """

    prompt: str = ""
    negative: str = ""
    params: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    loras: tuple[tuple[str, str], ...] = ()

    def get(self, key: str) -> str | None:
        return self.params.get(key)

    def size(self) -> tuple[int, int] | None:
        """``Size: 512x768`` as (width, height), None when absent or not that shape."""
        match = _SIZE.match(self.params.get("Size", ""))
        return (int(match.group(1)), int(match.group(2))) if match else None


def quote(value: str) -> str:
    """A value as A1111 writes it on the pairs' line: a JSON string when it holds a comma, a
    colon or a line break."""
    if not any(mark in value for mark in ",:\n"):
        return value
    return json.dumps(value, ensure_ascii=False)


def unquote(value: str) -> str:
    if len(value) < 2 or value[0] != '"' or value[-1] != '"':
        return value
    try:
        loaded = json.loads(value)
    except ValueError:
        return value
    return loaded if isinstance(loaded, str) else value


def format_infotext(info: Infotext) -> str:
    """The ``parameters`` text: prompt (its LoRA tags after it), negative line, pairs line."""
    prompt = info.prompt
    tags = " ".join(f"<lora:{name}:{weight}>" for name, weight in info.loras)
    if tags:
        prompt = f"{prompt}, {tags}" if prompt.strip() else tags
    negative = f"\n{NEGATIVE} {info.negative}" if info.negative else ""
    pairs = ", ".join(f"{key}: {quote(value)}" for key, value in info.params.items())
    return f"{prompt}{negative}\n{pairs}".strip()


def parse_infotext(text: str) -> Infotext:
    """Read a ``parameters`` text (A1111's, Forge's, or one Batchline wrote)."""
    *lines, last = text.replace("\r\n", "\n").strip().split("\n")
    pairs = _PAIR.findall(last)
    if len(pairs) < MIN_PAIRS:
        lines.append(last)
        pairs = []
    prompt_lines: list[str] = []
    negative_lines: list[str] = []
    for raw in lines:
        line = raw.strip()  # as A1111 reads each line
        if not negative_lines and line.startswith(NEGATIVE):
            negative_lines.append(line[len(NEGATIVE) :].strip())
        elif negative_lines:
            negative_lines.append(line)
        else:
            prompt_lines.append(line)
    prompt, loras = split_loras("\n".join(prompt_lines))
    params = {key: unquote(value.strip()) for key, value in pairs}
    return Infotext(prompt, "\n".join(negative_lines), MappingProxyType(params), loras)


def split_loras(prompt: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """The prompt without its ``<lora:name:weight>`` tags (and the separators they leave), and
    the tags' names and weights in order."""
    loras = tuple((name, weight) for name, weight in _LORA.findall(prompt))
    if not loras:
        return prompt, ()
    rest = re.sub(r"(\s*,)*\s*$", "", _LORA.sub("", prompt))
    return re.sub(r"^[\s,]+", "", rest), loras


def number_text(value: float) -> str:
    """A number as A1111 shows it: 7 for 7.0, 6.5 as it is."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
