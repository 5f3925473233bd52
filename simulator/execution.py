"""One prompt's execution: the event sequence, timing, interrupts, failures, cache and history."""

from __future__ import annotations

import asyncio
import time
import traceback
import uuid
from typing import TYPE_CHECKING, Any

from core.placement.model_inputs import MAIN_MODEL_FOLDERS, ModelInput, known_folder
from simulator.config import DEFAULT_STEPS
from simulator.faults import JobFault, take_job_fault
from simulator.images import preview_jpeg
from simulator.input_folder import PICTURE_INPUT, PICTURE_LOADERS, digest
from simulator.nodes import (
    REAL_NODES,
    NodeEnv,
    NodeFailure,
    cpu_seconds,
    runs_inline,
    simulate,
)
from simulator.state import CacheEntry, ServerState, now_ms
from simulator.validation import execution_order, is_link, signatures

if TYPE_CHECKING:
    from simulator.state import QueueItem


class Interrupted(Exception):
    """The interrupt flag was seen before a node or between sampler steps."""


class JobRun:
    """Runs one dequeued prompt and records what happened, like ComfyUI's PromptExecutor."""

    def __init__(self, state: ServerState, item: QueueItem) -> None:
        self.state = state
        self.item = item
        self.prompt_id = item.prompt_id
        self.prompt = item.prompt
        self.client_id: str | None = item.extra_data.get("client_id")
        self.messages: list[list[Any]] = []
        self.values: dict[str, tuple[Any, ...]] = {}
        self.executed: list[str] = []
        self.progress: dict[str, dict[str, Any]] = {}
        self.fault: JobFault | None = take_job_fault(state.faults)
        self.loaders = [n for n, node in self.prompt.items() if _loads_picture(node)]
        self.sigs = signatures(self.prompt, item.outputs, self._is_changed())
        self.cached = self._cached_nodes()
        is_output = self._is_output
        self.order = execution_order(self.prompt, item.outputs, set(self.cached), is_output)
        self.shares = self._time_shares()

    # --- messages -------------------------------------------------------------------------

    def add_message(self, event: str, data: dict[str, Any], broadcast: bool) -> None:
        data = {**data, "timestamp": now_ms()}
        self.messages.append([event, data])
        if self.client_id is not None or broadcast:
            self.state.hub.send(event, data, self.client_id)

    def to_client(self, event: str, data: dict[str, Any]) -> None:
        if self.client_id is not None:
            self.state.hub.send(event, data, self.client_id)

    def to_client_or_all(self, event: str, data: dict[str, Any]) -> None:
        self.state.hub.send(event, data, self.client_id)

    def _progress_state(self, node_id: str, value: float, maximum: float, state: str) -> None:
        self.progress[node_id] = {
            "value": value, "max": maximum, "state": state, "node_id": node_id,
            "prompt_id": self.prompt_id, "display_node_id": node_id,
            "parent_node_id": None, "real_node_id": node_id,
        }  # fmt: skip
        nodes = {key: dict(entry) for key, entry in self.progress.items()}
        self.to_client_or_all("progress_state", {"prompt_id": self.prompt_id, "nodes": nodes})

    # --- planning -------------------------------------------------------------------------

    def _is_output(self, node_id: str) -> bool:
        node_class = self.state.catalogue.get(self.prompt[node_id]["class_type"])
        return node_class is not None and node_class.output_node

    def _is_changed(self) -> dict[str, str]:
        """LoadImage's IS_CHANGED: the file's SHA-256, so a file replaced under its name is
        read again; a file that is gone never matches the cache (ComfyUI's NaN)."""
        folder = self.state.folders.input
        return {
            node_id: digest(folder, self.prompt[node_id]["inputs"].get(PICTURE_INPUT))
            or f"missing {uuid.uuid4()}"
            for node_id in self.loaders
        }

    def _cached_nodes(self) -> list[str]:
        if self.fault is not None:
            return []
        return [n for n in self.prompt if n in self.sigs and self.sigs[n] in self.state.cache]

    def _steps(self, node_id: str) -> int | None:
        steps = self.prompt[node_id]["inputs"].get("steps")
        simulated = self.prompt[node_id]["class_type"] not in REAL_NODES
        return steps if simulated and isinstance(steps, int) and steps > 0 else None

    def _time_shares(self) -> dict[str, float]:
        """Seconds per node: samplers get ``job_seconds × steps / 20``; else an even split."""
        seconds = self.state.config.job_seconds
        run = [n for n in self.order if n not in self.cached]
        samplers = {n: s for n in run if (s := self._steps(n)) is not None}
        if samplers:
            return {n: seconds * s / DEFAULT_STEPS for n, s in samplers.items()}
        return {n: seconds / len(run) for n in run} if run else {}

    # --- running --------------------------------------------------------------------------

    async def run(self) -> None:
        state = self.state
        state.interrupted = False
        state.execution_counts[self.prompt_id] += 1
        state.running_client = self.client_id
        self._log_inputs()
        self.add_message("execution_start", {"prompt_id": self.prompt_id}, broadcast=False)
        cached = {"nodes": list(self.cached), "prompt_id": self.prompt_id}
        self.add_message("execution_cached", cached, broadcast=False)
        success = await self._run_nodes()
        if success:
            state.success_counts[self.prompt_id] += 1
            self.add_message("execution_success", {"prompt_id": self.prompt_id}, broadcast=False)
        self._keep_cache()
        state.history.add(self.prompt_id, self._history_entry(success))
        state.last_node_id = None

    def _log_inputs(self) -> None:
        """Note the picture each loader this run needs names (read now, or its bytes' output
        taken from the node cache)."""
        used = [
            str(self.prompt[n]["inputs"].get(PICTURE_INPUT)) for n in self.loaders if n in self.sigs
        ]
        if used:
            self.state.inputs_read.setdefault(self.prompt_id, []).extend(used)

    async def _run_nodes(self) -> bool:
        for node_id in self.order:
            try:
                await self._run_node(node_id)
            except Interrupted:
                self._report_interrupt(node_id)
                return False
            except NodeFailure as failure:
                self._report_failure(node_id, failure)
                return False
        return True

    async def _run_node(self, node_id: str) -> None:
        if node_id in self.cached:
            self._replay_cached(node_id)
            return
        self._progress_state(node_id, 0.0, 1.0, "running")
        self.state.last_node_id = node_id
        payload = {"node": node_id, "display_node": node_id, "prompt_id": self.prompt_id}
        self.to_client("executing", payload)
        if self.state.interrupted:
            raise Interrupted
        inputs = self._resolve(node_id)
        outputs, ui = await self._compute(node_id, inputs)
        self.values[node_id] = outputs
        self.state.cache[self.sigs[node_id]] = CacheEntry(outputs, ui)
        self.executed.append(node_id)
        if ui is not None:
            self._send_executed(node_id, ui)
        self._progress_state(node_id, 1.0, 1.0, "finished")

    def _replay_cached(self, node_id: str) -> None:
        entry = self.state.cache[self.sigs[node_id]]
        self.values[node_id] = entry.outputs
        self._send_executed(node_id, entry.ui)
        self._progress_state(node_id, 1.0, 1.0, "finished")

    def _send_executed(self, node_id: str, ui: dict[str, Any] | None) -> None:
        data = {"node": node_id, "display_node": node_id, "output": ui, "prompt_id": self.prompt_id}
        self.to_client("executed", data)

    def _resolve(self, node_id: str) -> dict[str, Any]:
        resolved: dict[str, Any] = {}
        for name, value in self.prompt[node_id]["inputs"].items():
            resolved[name] = self._value_of(value) if is_link(value) else value
        return resolved

    def _value_of(self, link: list[Any]) -> Any:
        if link[0] not in self.values:
            self.values[link[0]] = self.state.cache[self.sigs[link[0]]].outputs
        outputs = self.values[link[0]]
        return outputs[link[1]] if link[1] < len(outputs) else None

    async def _compute(
        self, node_id: str, inputs: dict[str, Any]
    ) -> tuple[tuple[Any, ...], dict[str, Any] | None]:
        if self.fault is not None and self.fault.strikes(node_id, self.order, self._steps):
            await self.fault.fire(self.prompt[node_id]["class_type"])
        class_type = self.prompt[node_id]["class_type"]
        share = self.shares.get(node_id, 0.0)
        if class_type in REAL_NODES:
            return await self._compute_real(class_type, inputs, share)
        await self._load_main_model(class_type, inputs)
        steps = self._steps(node_id)
        if steps is not None:
            await self._sample(node_id, steps, share)
        else:
            await asyncio.sleep(share)
        node_class = self.state.catalogue.get(class_type)
        output_types = list(node_class.outputs) if node_class is not None else []
        return simulate(class_type, inputs, output_types)

    async def _load_main_model(self, class_type: str, inputs: dict[str, Any]) -> None:
        """A loader of a main model that runs (its output is not in the node cache) loads the
        file: `SimulatorConfig.load_seconds`, and the server holds that model from now on."""
        for name, value in inputs.items():
            folder = known_folder(ModelInput(class_type, name))
            if isinstance(value, str) and folder in MAIN_MODEL_FOLDERS:
                await asyncio.sleep(self.state.config.load_seconds)
                self.state.loaded_model = value
                self.state.model_loads[value] += 1

    async def _compute_real(
        self, class_type: str, inputs: dict[str, Any], share: float
    ) -> tuple[tuple[Any, ...], dict[str, Any] | None]:
        started = time.monotonic()
        env = self._env()
        node = REAL_NODES[class_type]
        try:
            if runs_inline(class_type, inputs):
                result = node(inputs, env)
            else:
                result = await asyncio.to_thread(node, inputs, env)
        except NodeFailure:
            raise
        except Exception as exc:
            raise _as_failure(exc) from exc
        busy = share + cpu_seconds(class_type, inputs) * self.state.config.cpu_time_scale
        await asyncio.sleep(max(0.0, busy - (time.monotonic() - started)))
        return result

    async def _sample(self, node_id: str, steps: int, seconds: float) -> None:
        for step in range(1, steps + 1):
            if self.state.interrupted:
                raise Interrupted
            await asyncio.sleep(seconds / steps)
            data = {"value": step, "max": steps, "prompt_id": self.prompt_id, "node": node_id}
            self.to_client_or_all("progress", data)
            self._progress_state(node_id, float(step), float(steps), "running")
            if self.state.config.preview_method != "none":
                self._preview(node_id, step / steps)

    def _preview(self, node_id: str, done: float) -> None:
        """A small JPEG of the step, to the job's client (to all without one), like ComfyUI's
        latent previewer."""
        metadata = {
            "node_id": node_id, "prompt_id": self.prompt_id, "display_node_id": node_id,
            "parent_node_id": None, "real_node_id": node_id,
        }  # fmt: skip
        self.state.hub.send_preview(preview_jpeg(self.prompt_id, done), metadata, self.client_id)

    def _env(self) -> NodeEnv:
        folders, extra = self.state.folders, self.item.extra_data
        pnginfo = extra.get("extra_pnginfo")
        return NodeEnv(
            output_dir=folders.output, temp_dir=folders.temp, input_dir=folders.input,
            prompt=self.prompt, extra_pnginfo=pnginfo if isinstance(pnginfo, dict) else None,
            ram_bytes=self.state.config.ram_bytes, rng=self.state.rng,
        )  # fmt: skip

    # --- endings --------------------------------------------------------------------------

    def _report_interrupt(self, node_id: str) -> None:
        data = {
            "prompt_id": self.prompt_id, "node_id": node_id,
            "node_type": self.prompt[node_id]["class_type"], "executed": list(self.executed),
        }  # fmt: skip
        self.add_message("execution_interrupted", data, broadcast=True)

    def _report_failure(self, node_id: str, failure: NodeFailure) -> None:
        inputs = self._resolve_for_report(node_id)
        data = {
            "prompt_id": self.prompt_id, "node_id": node_id,
            "node_type": self.prompt[node_id]["class_type"], "executed": list(self.executed),
            "exception_message": f"{failure.message}\n{failure.tips}",
            "exception_type": failure.exception_type,
            "traceback": failure.traceback, "current_inputs": inputs,
            "current_outputs": list(self.sigs),
        }  # fmt: skip
        self.add_message("execution_error", data, broadcast=False)

    def _resolve_for_report(self, node_id: str) -> dict[str, list[Any]]:
        report: dict[str, list[Any]] = {}
        for name, value in self.prompt[node_id]["inputs"].items():
            if is_link(value):
                continue
            scalar = value is None or isinstance(value, str | int | float | bool)
            report[name] = [value if scalar else str(value)]
        return report

    def _keep_cache(self) -> None:
        """Classic cache: only entries for this prompt's nodes survive the job."""
        keep = set(self.sigs.values())
        for key in [k for k in self.state.cache if k not in keep]:
            del self.state.cache[key]

    def _history_entry(self, success: bool) -> dict[str, Any]:
        outputs: dict[str, Any] = {}
        meta: dict[str, Any] = {}
        for node_id, sig in self.sigs.items():
            entry = self.state.cache.get(sig)
            if entry is not None and entry.ui is not None:
                outputs[node_id] = entry.ui
                meta[node_id] = {
                    "node_id": node_id, "display_node": node_id,
                    "parent_node": None, "real_node_id": node_id,
                }  # fmt: skip
        status = {
            "status_str": "success" if success else "error",
            "completed": success,
            "messages": self.messages,
        }
        return {"prompt": self.item.to_json(), "outputs": outputs, "status": status, "meta": meta}


def _as_failure(exc: Exception) -> NodeFailure:
    name, module = type(exc).__qualname__, type(exc).__module__
    kind = name if module == "builtins" else f"{module}.{name}"
    return NodeFailure(kind, str(exc), traceback.format_tb(exc.__traceback__))


def _loads_picture(node: dict[str, Any]) -> bool:
    return node.get("class_type") in PICTURE_LOADERS and isinstance(node.get("inputs"), dict)
