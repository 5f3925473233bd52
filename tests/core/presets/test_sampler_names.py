"""Tests for core.presets.sampler_names: ComfyUI's sampler and scheduler names as A1111's
labels, and A1111's labels (old and new) read back."""

from __future__ import annotations

import pytest

from core.catalogue import Catalogue
from core.presets.sampler_names import (
    SAMPLERS,
    SCHEDULERS,
    a1111_sampler,
    a1111_schedule,
    comfy_sampler,
)


@pytest.mark.parametrize(
    ("comfy", "label"),
    [
        ("euler_ancestral", "Euler a"),
        ("euler", "Euler"),
        ("dpmpp_2m", "DPM++ 2M"),
        ("dpmpp_2m_sde_gpu", "DPM++ 2M SDE"),
        ("dpmpp_2s_ancestral", "DPM++ 2S a"),
        ("dpm_2_ancestral", "DPM2 a"),
        ("uni_pc", "UniPC"),
        ("res_multistep", "res_multistep"),  # no A1111 sampler: ComfyUI's name
    ],
)
def test_comfyui_samplers_take_a1111s_labels(comfy: str, label: str) -> None:
    assert a1111_sampler(comfy) == label


def test_schedulers_take_a1111s_labels_and_unknown_ones_stay() -> None:
    assert [a1111_schedule(s) for s in ("karras", "sgm_uniform", "normal", "linear_quadratic")] == [
        "Karras",
        "SGM Uniform",
        "Normal",
        "linear_quadratic",
    ]


def test_every_name_of_the_bundled_comfyui_is_one_it_knows() -> None:
    """The table names only samplers and schedulers ComfyUI 0.3.64 offers."""
    ksampler = Catalogue.bundled().get("KSampler")
    assert ksampler is not None
    samplers, schedulers = ksampler.input("sampler_name"), ksampler.input("scheduler")
    assert samplers is not None
    assert schedulers is not None
    assert set(SAMPLERS) <= set(samplers.choices)
    assert set(SCHEDULERS) <= set(schedulers.choices)


@pytest.mark.parametrize(
    ("sampler", "schedule", "expected"),
    [
        ("Euler a", None, ("euler_ancestral", None)),
        ("DPM++ 2M", "Karras", ("dpmpp_2m", "karras")),
        ("DPM++ 2M Karras", None, ("dpmpp_2m", "karras")),  # before A1111 1.9
        ("DPM++ 2M SDE Exponential", None, ("dpmpp_2m_sde", "exponential")),
        ("DPM++ SDE", "Automatic", ("dpmpp_sde", None)),
        ("Euler", "SGMUniform", ("euler", "sgm_uniform")),
        ("Restart", "Align Your Steps", (None, None)),  # A1111's own, nothing in ComfyUI
        ("euler_ancestral", "karras", ("euler_ancestral", "karras")),  # ComfyUI's names kept
    ],
)
def test_a1111_labels_read_back_as_comfyui_names(sampler, schedule, expected) -> None:
    assert comfy_sampler(sampler, schedule) == expected


def test_every_label_reads_back_as_a_comfyui_name_of_the_same_label() -> None:
    for comfy, label in SAMPLERS.items():
        back, _ = comfy_sampler(label)
        assert back is not None, comfy
        assert SAMPLERS[back] == label, comfy
