"""The order of a grid's axes that switches models least: the costliest switch outermost.

`itertools.product` varies its last axis fastest, so an axis put first changes least often. A
checkpoint axis inside another alternates checkpoints job after job (a load and the prompts'
re-encoding each time); outermost, each checkpoint loads once per pass.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from core.placement.model_inputs import MAIN_MODEL_FOLDERS, ModelInput, is_model_file, known_folder

if TYPE_CHECKING:
    from collections.abc import Sequence

# The cost of a switch, by what an axis sweeps: the main model (load and re-encode) over the
# other models (a text encoder, VAE, ControlNet... loads), over a LoRA (re-patched into the
# loaded model), over any other input (nothing to load).
MAIN_MODEL, OTHER_MODEL, LORA, NO_MODEL = 0, 1, 2, 3


def switch_cost(key: str, values: Sequence[Any], prompt: Mapping[str, Any]) -> int:
    """How costly a change of the axis `key` (`NODE_ID.INPUT`) is: MAIN_MODEL ... NO_MODEL.

    An input of one of ComfyUI's model loaders counts by its folder; a custom node's input
    counts as a model when every value of the axis is a model file.
    """
    node_id, _, name = key.partition(".")
    node = prompt.get(node_id)
    class_type = node.get("class_type") if isinstance(node, Mapping) else None
    folder = known_folder(ModelInput(str(class_type), name))
    if folder in MAIN_MODEL_FOLDERS:
        return MAIN_MODEL
    if folder == "loras":
        return LORA
    if folder is not None or (values and all(is_model_file(v) for v in values)):
        return OTHER_MODEL
    return NO_MODEL


def axis_order(axes: Sequence[tuple[str, Sequence[Any]]], prompt: Mapping[str, Any]) -> list[int]:
    """The indices of `axes` (each `(NODE_ID.INPUT, values)`), costliest switch first.

    Axes of equal cost keep the order given (the artist's X before Y).
    """
    return sorted(range(len(axes)), key=lambda i: switch_cost(*axes[i], prompt))


def model_axes(axes: Sequence[tuple[str, Sequence[Any]]], prompt: Mapping[str, Any]) -> list[str]:
    """The keys of the axes that sweep a model file, in the order given."""
    return [key for key, values in axes if switch_cost(key, values, prompt) != NO_MODEL]
