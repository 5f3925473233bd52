"""What a job is found by: its prompts (positive and negative by the sampler input their
conditioning reaches), seeds, models, LoRAs and other varied values, the job's values in place
of the workflow's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.catalogue import Catalogue
from core.ledger.picture_terms import WorkflowTerms, job_terms
from core.presets.prompt_roles import prompt_roles
from tests.core.finished_pictures import PORTRAIT, WITH_LORA

PRESETS = sorted((Path(__file__).resolve().parents[3] / "resources" / "presets").glob("*.json"))


def test_the_workflows_own_values_are_the_terms_of_a_job_that_varies_none() -> None:
    terms = job_terms(PORTRAIT, {}, Catalogue.bundled())
    assert terms.prompt == "portrait of a red fox in a misty forest, soft light"
    assert terms.negative == "blurry, low quality"
    assert terms.seeds == (1000,)
    assert terms.models == ("v1-5-pruned-emaonly.safetensors",)
    assert (terms.loras, terms.values) == ((), ())


def test_a_jobs_values_replace_the_workflows_and_the_others_are_its_varied_values() -> None:
    params = {
        "3.seed": 4242,
        "3.cfg": 7.5,
        "3.sampler_name": "euler",
        "6.text": "an owl at dusk",
        "10.lora_name": "film_grain.safetensors",
    }
    terms = job_terms(WITH_LORA, params, Catalogue.bundled())
    assert terms.prompt == "an owl at dusk"
    assert terms.seeds == (4242,)
    assert terms.loras == ("film_grain.safetensors",)
    # The prompt, seed and LoRA have their own fields: not said again among the values.
    assert terms.values == ("cfg 7.5", "sampler_name euler")


def test_custom_nodes_text_and_model_files_are_read_by_their_names() -> None:
    api = {
        "1": {"class_type": "MyPromptNode", "inputs": {"text": "a heron", "clip": ["2", 1]}},
        "2": {"class_type": "MyLoader", "inputs": {"model_file": "juggernaut.gguf"}},
        "3": {"class_type": "MyLoraStack", "inputs": {"lora_1": "grain.safetensors"}},
    }
    terms = job_terms(api, {}, Catalogue.bundled())
    assert (terms.prompt, terms.models, terms.loras) == (
        "a heron",
        ("juggernaut.gguf",),
        ("grain.safetensors",),
    )


def test_an_input_picture_is_a_value_by_its_file_name() -> None:
    api = {"1": {"class_type": "LoadImage", "inputs": {"image": "x.png"}}}
    picture = {"picture": {"sha256": "a" * 64, "file": "cat.png", "source": "/p", "size": 3}}
    terms = job_terms(api, {"1.image": picture}, Catalogue.bundled())
    assert terms.values == ("image cat.png",)


@pytest.mark.parametrize("preset", PRESETS, ids=lambda path: path.stem)
def test_the_roles_agree_with_the_presets_prompt_roles(preset: Path) -> None:
    """The ledger floor cannot import core.presets: its reading of the roles must say the same."""
    api = json.loads(preset.read_text())
    catalogue = Catalogue.bundled()
    terms = WorkflowTerms(api, catalogue).of({})
    roles = prompt_roles(api, catalogue)
    texts = {
        role: [api[node]["inputs"]["text"] for node in roles if roles[node] == role]
        for role in set(roles.values())
    }
    assert terms.prompt == "\n".join(texts.get("Positive prompt", []))
    assert terms.negative == "\n".join(texts.get("Negative prompt", []))
