"""ComfyUI 0.3.64's prompt validation: the same checks, order, coercions and error shapes; one
literal value checked as ``validate_inputs`` does; and the prompt graph's helpers (links,
input signatures for the cache, ComfyUI's execution order)."""

from __future__ import annotations

import hashlib
import json
import traceback
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from simulator.input_folder import resolve

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from core.catalogue import Catalogue, InputSpec, NodeClass


Prompt = dict[str, Any]
Reason = dict[str, Any]


@dataclass
class Verdict:
    """The outcome of validating a prompt: ``error`` is None when at least one output is valid."""

    error: Reason | None
    outputs: list[str] = field(default_factory=list)
    node_errors: dict[str, Any] = field(default_factory=dict)


def error(kind: str, message: str, details: str = "", **extra: Any) -> Reason:
    return {"type": kind, "message": message, "details": details, "extra_info": extra}


class Validator:
    """Checks prompts against a catalogue and the simulator's input folder.

    ``raw`` is the served object_info, used for ``input_config`` exactly as ComfyUI echoes it;
    ``check_combo_type`` selects the newer servers' rules: ``"COMBO"``-typed inputs are
    list-checked and unknown classes are reported as ``missing_node_type``.
    """

    def __init__(
        self, catalogue: Catalogue, raw: dict[str, Any], input_dir: Path, check_combo_type: bool
    ) -> None:
        self.catalogue = catalogue
        self.raw = raw
        self.input_dir = input_dir
        self.check_combo_type = check_combo_type

    def validate(self, prompt: Prompt, targets: list[str] | None) -> Verdict:
        outputs: list[str] = []
        for node_id, node in prompt.items():
            if "class_type" not in node:
                message = "Cannot execute because a node is missing the class_type property."
                return Verdict(error("invalid_prompt", message, f"Node ID '#{node_id}'"))
            node_class = self.catalogue.get(node["class_type"])
            if node_class is None:
                return Verdict(self._unknown_class(node_id, node))
            if node_class.output_node and (targets is None or node_id in targets):
                outputs.append(node_id)
        if not outputs:
            return Verdict(error("prompt_no_outputs", "Prompt has no outputs"))
        return _PromptCheck(self, prompt).run(outputs)

    def _unknown_class(self, node_id: str, node: dict[str, Any]) -> Reason:
        class_type = node["class_type"]
        if not self.check_combo_type:  # 0.3.x
            message = f"Cannot execute because node {class_type} does not exist."
            return error("invalid_prompt", message, f"Node ID '#{node_id}'")
        meta = node.get("_meta")
        title = meta.get("title", class_type) if isinstance(meta, dict) else class_type
        message = f"Node '{title}' not found. The custom node may not be installed."
        return error(
            "missing_node_type", message, f"Node ID '#{node_id}'",
            node_id=node_id, class_type=class_type, node_title=title,
        )  # fmt: skip


class _PromptCheck:
    """One validation run: ``validated`` memoises each node's (valid, reasons)."""

    def __init__(self, validator: Validator, prompt: Prompt) -> None:
        self.v = validator
        self.prompt = prompt
        self.validated: dict[str, tuple[bool, list[Reason]]] = {}

    def run(self, outputs: list[str]) -> Verdict:
        good: list[str] = []
        failed: list[tuple[str, list[Reason]]] = []
        node_errors: dict[str, Any] = {}
        for output in outputs:
            valid, reasons = self._validate_output(output)
            if valid:
                good.append(output)
                continue
            failed.append((output, reasons))
            self._collect(node_errors, output)
        if good:
            return Verdict(None, good, node_errors)
        details = "\n".join(f"{r['message']}: {r['details']}" for _, rs in failed for r in rs)
        message = "Prompt outputs failed validation"
        return Verdict(error("prompt_outputs_failed_validation", message, details), [], node_errors)

    def _validate_output(self, output: str) -> tuple[bool, list[Reason]]:
        try:
            return self.node(output)
        except Exception as exc:
            reasons = [_exceptionerror("exception_during_validation", exc)]
            self.validated[output] = (False, reasons)
            return False, reasons

    def _collect(self, node_errors: dict[str, Any], output: str) -> None:
        for node_id, (valid, reasons) in self.validated.items():
            if valid or not reasons:
                continue
            entry = node_errors.setdefault(
                node_id,
                {
                    "errors": reasons,
                    "dependent_outputs": [],
                    "class_type": self.prompt[node_id]["class_type"],
                },
            )
            entry["dependent_outputs"].append(output)

    def node(self, node_id: str) -> tuple[bool, list[Reason]]:
        if node_id in self.validated:
            return self.validated[node_id]
        node = self.prompt[node_id]
        node_class = self.v.catalogue.get(node["class_type"])
        assert node_class is not None  # every class was checked before
        inputs: dict[str, Any] = node["inputs"]
        errors: list[Reason] = []
        valid = True
        for spec in node_class.inputs:
            ok, reason = self._check_input(node_class, spec, inputs)
            valid = valid and ok
            if reason is not None:
                errors.append(reason)
        result = (valid and not errors, errors)
        self.validated[node_id] = result
        return result

    def _check_input(
        self, node_class: NodeClass, spec: InputSpec, inputs: dict[str, Any]
    ) -> tuple[bool, Reason | None]:
        name = spec.name
        if name not in inputs:
            if spec.required:
                return False, error(
                    "required_input_missing", "Required input is missing", name, input_name=name
                )
            return True, None
        if isinstance(inputs[name], list):
            return self._check_link(node_class, spec, inputs[name])
        raw = self.raw_spec(node_class, spec)
        v = self.v
        return True, check_value(
            node_class.name, raw, inputs, spec.name, v.input_dir, v.check_combo_type
        )

    def _check_link(
        self, node_class: NodeClass, spec: InputSpec, link: list[Any]
    ) -> tuple[bool, Reason | None]:
        info = self.input_config(node_class, spec)
        name = spec.name
        if len(link) != 2:
            message = "Bad linked input, must be a length-2 list of [node_id, slot_index]"
            return False, error(
                "bad_linked_input", message, name,
                input_name=name, input_config=info, received_value=link,
            )  # fmt: skip
        source_id, slot = link
        source = self.v.catalogue.get(self.prompt[source_id]["class_type"])
        assert source is not None
        received = source.outputs[slot]
        if not types_match(received, self._declared_type(node_class, spec)):
            details = f"{name}, received_type({received}) mismatch input_type({info[0]})"
            return False, error(
                "return_type_mismatch", "Return type mismatch between linked nodes", details,
                input_name=name, input_config=info, received_type=received, linked_node=link,
            )  # fmt: skip
        try:
            valid, _ = self.node(str(source_id))
        except Exception as exc:
            return False, _exceptionerror("exception_during_inner_validation", exc, name)
        return valid, None

    def _declared_type(self, node_class: NodeClass, spec: InputSpec) -> str:
        head = self.raw_spec(node_class, spec)[0]
        return "COMBO" if isinstance(head, list) else str(head)

    def raw_spec(self, node_class: NodeClass, spec: InputSpec) -> list[Any]:
        section = "required" if spec.required else "optional"
        raw = self.v.raw[node_class.name]["input"][section][spec.name]
        return list(raw) if isinstance(raw, list | tuple) else [raw]

    def input_config(self, node_class: NodeClass, spec: InputSpec) -> list[Any]:
        raw = self.raw_spec(node_class, spec)
        return [raw[0], raw[1] if len(raw) > 1 else {}]


def types_match(received: str, declared: str) -> bool:
    """ComfyUI's ``validate_node_input``: equal, a wildcard, or overlapping comma unions."""
    if received == declared or "*" in (received, declared):
        return True
    got = {t.strip() for t in received.split(",")}
    want = {t.strip() for t in declared.split(",")}
    return bool(got & want)


def _exceptionerror(kind: str, exc: Exception, input_name: str | None = None) -> Reason:
    name = type(exc).__qualname__
    module = type(exc).__module__
    extra: dict[str, Any] = {
        "exception_type": name if module == "builtins" else f"{module}.{name}",
        "traceback": traceback.format_tb(exc.__traceback__),
    }
    if input_name is not None:
        extra["input_name"] = input_name
    message = (
        "Exception when validating node"
        if input_name is None
        else ("Exception when validating inner node")
    )
    return {"type": kind, "message": message, "details": str(exc), "extra_info": extra}


# Checks of one literal input value, as ComfyUI's ``validate_inputs`` does them (coercing).

COERCE: dict[str, type] = {"INT": int, "FLOAT": float, "STRING": str, "BOOLEAN": bool}

# Inputs a node checks itself (ComfyUI's VALIDATE_INPUTS): they skip the generic checks.
CUSTOM_CHECKED = {("LoadImage", "image"), ("LoadImageMask", "image")}


def check_value(
    class_type: str,
    raw_spec: list[Any],
    inputs: dict[str, Any],
    name: str,
    input_dir: Path,
    check_combo_type: bool,
) -> Reason | None:
    """Coerce ``inputs[name]`` in place and return the first problem, or None."""
    head = raw_spec[0]
    options: dict[str, Any] = raw_spec[1] if len(raw_spec) > 1 else {}
    info = [head, options]
    value = inputs[name]
    if isinstance(value, dict) and "__value__" in value:
        value = inputs[name] = value["__value__"]
    convert = COERCE.get(head) if isinstance(head, str) else None
    if convert is not None:
        try:
            value = inputs[name] = convert(value)
        except (TypeError, ValueError) as exc:
            return error(
                "invalid_input_type", f"Failed to convert an input value to a {head} value",
                f"{name}, {value}, {exc}",
                input_name=name, input_config=info, received_value=value,
                exception_message=str(exc),
            )  # fmt: skip
    if (class_type, name) in CUSTOM_CHECKED:
        return _custom_check(value, name, input_dir)
    return _range_check(value, name, info) or _list_check(value, name, info, check_combo_type)


def _range_check(value: Any, name: str, info: list[Any]) -> Reason | None:
    options = info[1]
    if "min" in options and value < options["min"]:
        return error(
            "value_smaller_than_min", f"Value {value} smaller than min of {options['min']}", name,
            input_name=name, input_config=info, received_value=value,
        )  # fmt: skip
    if "max" in options and value > options["max"]:
        return error(
            "value_bigger_than_max", f"Value {value} bigger than max of {options['max']}", name,
            input_name=name, input_config=info, received_value=value,
        )  # fmt: skip
    return None


def _list_check(value: Any, name: str, info: list[Any], check_combo_type: bool) -> Reason | None:
    head, options = info
    if isinstance(head, list):
        choices = head
    elif check_combo_type and head == "COMBO":
        choices = list(options.get("options") or [])
    else:
        return None
    if value in choices:
        return None
    config: list[Any] | None = info
    listed = str(choices)
    if len(choices) > 20:
        config, listed = None, f"(list of length {len(choices)})"
    return error(
        "value_not_in_list", "Value not in list", f"{name}: '{value}' not in {listed}",
        input_name=name, input_config=config, received_value=value,
    )  # fmt: skip


def _custom_check(value: Any, name: str, input_dir: Path) -> Reason | None:
    """The loaders' VALIDATE_INPUTS: the file must be in the input folder (a subfolder's
    ``sub/name.png`` too), whatever the choices listed."""
    if resolve(input_dir, value) is not None:
        return None
    return error(
        "custom_validation_failed", "Custom validation failed for node",
        f"{name} - Invalid image file: {value}", input_name=name,
    )  # fmt: skip


# Prompt graph helpers: links, input signatures for the cache, and ComfyUI's execution order.


def is_link(value: Any) -> bool:
    return (
        isinstance(value, list)
        and len(value) == 2
        and isinstance(value[0], str)
        and isinstance(value[1], int)
    )


def signatures(
    prompt: Prompt, outputs: list[str], changed: Mapping[str, str] | None = None
) -> dict[str, str]:
    """A digest per node reachable from ``outputs``: class, literal inputs and ancestors, and
    what ``changed`` holds for the node (IS_CHANGED: a loaded file's digest)."""
    sigs: dict[str, str] = {}
    changed = changed or {}

    def sig(node_id: str) -> str:
        if node_id not in sigs:
            node = prompt[node_id]
            parts: list[Any] = [node["class_type"]]
            if node_id in changed:
                parts.append(["is_changed", changed[node_id]])
            for name in sorted(node["inputs"]):
                value = node["inputs"][name]
                parts.append([name, ["link", sig(value[0]), value[1]] if is_link(value) else value])
            text = json.dumps(parts, sort_keys=True, default=str)
            sigs[node_id] = hashlib.sha256(text.encode()).hexdigest()
        return sigs[node_id]

    for output in outputs:
        sig(output)
    return sigs


def execution_order(
    prompt: Prompt, outputs: list[str], cached: set[str], is_output: Any
) -> list[str]:
    """The order ComfyUI's ExecutionList runs nodes: ready output nodes first, else first added.

    Cached ancestors are not added; cached output nodes are (they re-emit their UI output).
    """
    pending: dict[str, set[str]] = {}
    for output in outputs:
        stack = [output]
        while stack:
            node_id = stack.pop()
            if node_id in pending:
                continue
            pending[node_id] = set()
            for value in prompt[node_id]["inputs"].values():
                if is_link(value) and value[0] not in cached:
                    pending[node_id].add(value[0])
                    stack.append(value[0])
    order: list[str] = []
    while pending:
        ready = [n for n, blockers in pending.items() if not blockers - set(order)]
        pick = next((n for n in ready if is_output(n)), ready[0])
        order.append(pick)
        del pending[pick]
    return order
