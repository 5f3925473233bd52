"""ComfyUI's sampler and scheduler names as A1111 names them, and back.

A1111 (stable-diffusion-webui 1.9 and later) writes the sampler and the schedule apart
("Sampler: DPM++ 2M, Schedule type: Karras"); before 1.9 the schedule was part of the
sampler's name ("DPM++ 2M Karras"), which is still read. The labels are A1111's own
(`modules/sd_samplers_kdiffusion.py`, `sd_samplers_timesteps.py`, `sd_schedulers.py`). A
ComfyUI name with no A1111 sampler of the same method is written as ComfyUI names it.
"""

from __future__ import annotations

# ComfyUI sampler_name -> A1111 "Sampler". The _gpu variants are the same method with the
# noise drawn on the GPU, which A1111 does not tell apart.
SAMPLERS: dict[str, str] = {
    "euler": "Euler",
    "euler_ancestral": "Euler a",
    "heun": "Heun",
    "heunpp2": "Heun PP2",
    "dpm_2": "DPM2",
    "dpm_2_ancestral": "DPM2 a",
    "lms": "LMS",
    "dpm_fast": "DPM fast",
    "dpm_adaptive": "DPM adaptive",
    "dpmpp_2s_ancestral": "DPM++ 2S a",
    "dpmpp_sde": "DPM++ SDE",
    "dpmpp_sde_gpu": "DPM++ SDE",
    "dpmpp_2m": "DPM++ 2M",
    "dpmpp_2m_sde": "DPM++ 2M SDE",
    "dpmpp_2m_sde_gpu": "DPM++ 2M SDE",
    "dpmpp_2m_sde_heun": "DPM++ 2M SDE Heun",
    "dpmpp_2m_sde_heun_gpu": "DPM++ 2M SDE Heun",
    "dpmpp_3m_sde": "DPM++ 3M SDE",
    "dpmpp_3m_sde_gpu": "DPM++ 3M SDE",
    "ddpm": "DDPM",
    "lcm": "LCM",
    "ddim": "DDIM",
    "uni_pc": "UniPC",
    "uni_pc_bh2": "UniPC",
}

# ComfyUI scheduler -> A1111 "Schedule type".
SCHEDULERS: dict[str, str] = {
    "normal": "Normal",
    "karras": "Karras",
    "exponential": "Exponential",
    "sgm_uniform": "SGM Uniform",
    "simple": "Simple",
    "ddim_uniform": "DDIM",
    "beta": "Beta",
    "kl_optimal": "KL Optimal",
}

# Reading back: the first ComfyUI name of each label (the plain one, not the _gpu variant).
_SAMPLER_OF: dict[str, str] = {}
for _comfy, _label in SAMPLERS.items():
    _SAMPLER_OF.setdefault(_label.casefold(), _comfy)
_SCHEDULER_OF = {label.casefold(): comfy for comfy, label in SCHEDULERS.items()}
# A1111's alias of a schedule; the pre-1.9 suffixes of a sampler's name.
_SCHEDULER_OF["sgmuniform"] = "sgm_uniform"
_SUFFIXES = ("Karras", "Exponential", "SGM Uniform")
AUTOMATIC = "automatic"


def a1111_sampler(comfy_name: str) -> str:
    """A ComfyUI sampler_name as A1111's "Sampler" (unknown ones as they are)."""
    return SAMPLERS.get(comfy_name, comfy_name)


def a1111_schedule(comfy_name: str) -> str:
    """A ComfyUI scheduler as A1111's "Schedule type" (unknown ones as they are)."""
    return SCHEDULERS.get(comfy_name, comfy_name)


def comfy_sampler(sampler: str, schedule: str | None = None) -> tuple[str | None, str | None]:
    """The ComfyUI sampler_name and scheduler of A1111's "Sampler" and "Schedule type".

    "DPM++ 2M Karras" (before 1.9) is read as DPM++ 2M with the Karras schedule; a label
    ComfyUI has no name for is None, as is an "Automatic" or missing schedule (the sampler's
    default: nothing to set).
    """
    name = sampler.strip()
    if schedule is None:
        for suffix in _SUFFIXES:
            if name.casefold().endswith(" " + suffix.casefold()):
                name, schedule = name[: -len(suffix) - 1].strip(), suffix
                break
    comfy = _SAMPLER_OF.get(name.casefold()) or (name if name in SAMPLERS else None)
    scheduler = None
    if schedule is not None and schedule.strip().casefold() != AUTOMATIC:
        key = schedule.strip().casefold()
        scheduler = _SCHEDULER_OF.get(key) or (schedule if schedule in SCHEDULERS else None)
    return comfy, scheduler
