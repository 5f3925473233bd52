"""Hand-written shape checks for JSON bodies; each failure is a protocol error naming the route."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn

from core.errors import ComfyProtocolError

if TYPE_CHECKING:
    from collections.abc import Mapping

JsonObject = dict[str, Any]


def parse_json(text: str | bytes, route: str) -> Any:
    """Decode a JSON body; anything undecodable (or absurdly nested) is a protocol error."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ComfyProtocolError(f"body is not JSON ({type(exc).__name__})", route) from exc


def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__


@dataclass(frozen=True, slots=True)
class Shape:
    """Typed accessors over decoded JSON that fail with a ComfyProtocolError naming the route."""

    route: str

    def fail(self, what: str, expected: str, value: object) -> NoReturn:
        raise ComfyProtocolError(f"{what}: expected {expected}, got {_kind(value)}", self.route)

    def obj(self, value: object, what: str) -> JsonObject:
        if not isinstance(value, dict):
            self.fail(what, "an object", value)
        return value

    def array(self, value: object, what: str) -> list[Any]:
        if not isinstance(value, list):
            self.fail(what, "a list", value)
        return value

    def text(self, value: object, what: str) -> str:
        if not isinstance(value, str):
            self.fail(what, "a string", value)
        return value

    def opt_text(self, value: object, what: str) -> str | None:
        return None if value is None else self.text(value, what)

    def integer(self, value: object, what: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(what, "an integer", value)
        return value

    def opt_integer(self, value: object, what: str) -> int | None:
        return None if value is None else self.integer(value, what)

    def number(self, value: object, what: str) -> int | float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.fail(what, "a number", value)
        return value

    def opt_number(self, value: object, what: str) -> int | float | None:
        return None if value is None else self.number(value, what)

    def flag(self, value: object, what: str) -> bool:
        if not isinstance(value, bool):
            self.fail(what, "a boolean", value)
        return value

    def key(self, mapping: Mapping[str, Any], key: str, what: str) -> Any:
        """The value under ``key``; a missing key is a protocol error."""
        if key not in mapping:
            raise ComfyProtocolError(f"{what}: missing key {key!r}", self.route)
        return mapping[key]

    def text_list(self, value: object, what: str) -> tuple[str, ...]:
        return tuple(self.text(item, f"{what}[]") for item in self.array(value, what))
