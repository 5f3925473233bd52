"""Tests for core.presets.infotext: A1111's `parameters` text written and read back, and real
A1111 and Forge infotexts read as A1111 reads them."""

from __future__ import annotations

import string
from types import MappingProxyType

from hypothesis import given
from hypothesis import strategies as st

from core.presets.infotext import Infotext, format_infotext, parse_infotext, quote, unquote

# Real infotexts. The first is the sample in A1111's own parse_generation_parameters
# docstring (modules/infotext_utils.py, an 8-hex model hash of the 2022 versions); the
# others as A1111 1.9 / 1.10 and an SDXL picture with LoRAs published them.
A1111_DOCSTRING = (
    "girl with an artist's beret, determined, blue eyes, desert scene, computer monitors, heavy "
    "makeup, by Alphonse Mucha and Charlie Bowater, ((eyeshadow)), (coquettish), detailed, "
    "intricate\n"
    "Negative prompt: ugly, fat, obese, chubby, (((deformed))), [blurry], bad anatomy, "
    "disfigured, poorly drawn face, mutation, mutated, (extra_limb), (ugly), (poorly drawn "
    "hands), messy drawing\n"
    "Steps: 20, Sampler: Euler a, CFG scale: 7, Seed: 965400086, Size: 512x512, "
    "Model hash: 45dee52b"
)
A1111_1_9_IMG2IMG = (
    "professional product photoshoot of perfume bottle in sand with beach elements, studio "
    "lighting, warm weather\n"
    "Negative prompt: incomplete figures\n"
    "Steps: 20, Sampler: Euler a, Schedule type: Automatic, CFG scale: 7, Seed: 3001968073, "
    "Size: 985x1266, Model hash: b513c6287d, Model: realism_engine, Denoising strength: 0.75, "
    "Mask blur: 2, Version: v1.9.4"
)
A1111_1_10_EMPTY_NEGATIVE = (
    "cat portrait, \n"
    "Negative prompt: \n"
    "Steps: 13, Sampler: DPM++ 2M, Schedule type: Karras, CFG scale: 4, Seed: 2535254266, "
    "Face restoration: CodeFormer, Size: 1216x832, Model hash: 31e35c80fc, Model: "
    "sd_xl_base_1.0, FP8 weight: Enable for SDXL, Cache FP16 weight for LoRA: True, "
    "Version: v1.10.1"
)
SDXL_WITH_LORAS = (
    "score_9, 1girl, pastel colors, <lora:zy_Realism_Enhancer_v2:0.6>, "
    "<lora:Wisps_of_Light_Pony:0.8>\n"
    "Negative prompt: score_5, score_4, 3d, (angular face:1.3), (bra:1.5), glasses\n"
    "Steps: 30, Sampler: DPM++ 3M SDE, Schedule type: Karras, CFG scale: 5, Seed: 2480865251, "
    "Size: 1152x896, Model hash: c379d154eb, Model: albedobaseXL_v31Large-mid_140737-vid_1041855, "
    'Lora hashes: "zy_Realism_Enhancer_v2: b46384abcc66, Wisps_of_Light_Pony: 95011c7288d0", '
    "dynthres_enabled: True, dynthres_mimic_scale: 7"
)


def test_a1111s_own_sample_reads_as_a1111_reads_it() -> None:
    info = parse_infotext(A1111_DOCSTRING)
    assert info.prompt == A1111_DOCSTRING.split("\n")[0]
    assert info.negative == A1111_DOCSTRING.split("\n")[1].removeprefix("Negative prompt: ")
    assert dict(info.params) == {
        "Steps": "20",
        "Sampler": "Euler a",
        "CFG scale": "7",
        "Seed": "965400086",
        "Size": "512x512",
        "Model hash": "45dee52b",
    }
    assert info.size() == (512, 512)


def test_a_newer_sample_keeps_every_pair_in_order() -> None:
    info = parse_infotext(A1111_1_9_IMG2IMG)
    assert list(info.params) == [
        "Steps",
        "Sampler",
        "Schedule type",
        "CFG scale",
        "Seed",
        "Size",
        "Model hash",
        "Model",
        "Denoising strength",
        "Mask blur",
        "Version",
    ]
    assert info.get("Denoising strength") == "0.75"
    assert info.size() == (985, 1266)


def test_an_empty_negative_line_and_trailing_spaces_are_read_as_a1111_does() -> None:
    info = parse_infotext(A1111_1_10_EMPTY_NEGATIVE)
    assert (info.prompt, info.negative) == ("cat portrait,", "")
    assert info.get("Model") == "sd_xl_base_1.0"
    assert info.get("Cache FP16 weight for LoRA") == "True"


def test_loras_are_taken_out_of_the_prompt_and_a_quoted_value_is_whole() -> None:
    info = parse_infotext(SDXL_WITH_LORAS)
    assert info.prompt == "score_9, 1girl, pastel colors"
    assert info.loras == (("zy_Realism_Enhancer_v2", "0.6"), ("Wisps_of_Light_Pony", "0.8"))
    assert info.get("Lora hashes") == (
        "zy_Realism_Enhancer_v2: b46384abcc66, Wisps_of_Light_Pony: 95011c7288d0"
    )
    assert info.get("dynthres_mimic_scale") == "7"


def test_a_text_without_a_pairs_line_is_all_prompt() -> None:
    info = parse_infotext("a fox\nin the snow, Steps: 20")
    assert info.prompt == "a fox\nin the snow, Steps: 20"
    assert dict(info.params) == {}


def test_written_as_a1111_writes_it() -> None:
    info = Infotext(
        "a red fox",
        "blurry",
        MappingProxyType({"Steps": "20", "Sampler": "Euler a", "Seed": "42", "Size": "512x768"}),
        (("fox_style", "0.8"),),
    )
    assert format_infotext(info) == (
        "a red fox, <lora:fox_style:0.8>\nNegative prompt: blurry\n"
        "Steps: 20, Sampler: Euler a, Seed: 42, Size: 512x768"
    )


def test_a_value_with_a_comma_colon_or_line_break_is_quoted_as_json() -> None:
    assert quote("plain") == "plain"
    assert quote('a, b: "c"') == '"a, b: \\"c\\""'
    assert unquote(quote('a, b: "c"\nd')) == 'a, b: "c"\nd'
    assert unquote('"unterminated') == '"unterminated'


# --- round trip ---------------------------------------------------------------------------------

_WORDS = string.ascii_letters + string.digits + " ,.:()[]_-'\"!?éü日本"


def _line() -> st.SearchStrategy[str]:
    return (
        st.text(_WORDS, min_size=1, max_size=30)
        .map(str.strip)
        .filter(lambda t: bool(t) and not t.startswith(("Negative prompt:", ",")))
        .filter(lambda t: not t.endswith(","))
    )


_TEXT = st.lists(_line(), min_size=0, max_size=3).map("\n".join)
_KEY = st.sampled_from(["Steps", "Sampler", "CFG scale", "Seed", "Size", "Model", "Clip skip"])
# A key is two characters at least, as A1111's pattern reads it (`\w[\w \-/]+`).
_EXTRA_KEY = st.text(string.ascii_letters + " -/", min_size=1, max_size=12).map(
    lambda t: "X" + t.rstrip() + "y"
)
_VALUE = (
    st.text(_WORDS + "\n\\", max_size=20).map(str.strip).filter(lambda t: not t.startswith('"'))
)
_PARAMS = st.dictionaries(st.one_of(_KEY, _EXTRA_KEY), _VALUE, min_size=3, max_size=8)
_LORAS = st.lists(
    st.tuples(
        st.text(string.ascii_letters + "_- ", min_size=1, max_size=10).map(str.strip).filter(bool),
        st.sampled_from(["1", "0.8", "-0.5", "1.25"]),
    ),
    max_size=3,
).map(tuple)


@given(prompt=_TEXT, negative=_TEXT, params=_PARAMS, loras=_LORAS)
def test_what_is_written_reads_back_the_same(prompt, negative, params, loras) -> None:
    info = Infotext(prompt, negative, MappingProxyType(params), loras)
    again = parse_infotext(format_infotext(info))
    assert (again.prompt, again.negative, again.loras) == (prompt, negative, loras)
    assert dict(again.params) == params
