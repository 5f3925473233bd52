"""Pictures through the API: sent as the body (never a path on the artist's disk), checked as a
picture file is, kept by content, answered as a value a batch then sets or sweeps; a value the
store does not hold (a made-up hash, another source) is 400 naming the field, nothing queued."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from core.api import pictures as pictures_module
from core.inputs import PictureRef, PictureStore
from core.presets import preset_from_api
from core.presets.storing import store_preset
from tests.core.api.conftest import Api
from tests.core.inputs.pictures import make_png

pytestmark = pytest.mark.asyncio

# LoadImage -> ImageAddNoise(seed) -> SaveImage: image-to-image without models.
IMG2IMG = {
    "1": {"class_type": "LoadImage", "inputs": {"image": "example.png"}},
    "2": {"class_type": "ImageAddNoise", "inputs": {"image": ["1", 0], "seed": 1, "strength": 0.5}},
    "3": {"class_type": "SaveImage", "inputs": {"images": ["2", 0], "filename_prefix": "i2i"}},
}


def png(tmp_path: Path, shade: int, size: tuple[int, int] = (8, 8)) -> bytes:
    return make_png(tmp_path / f"p{shade}.png", shade=shade, size=size).read_bytes()


def kept(api: Api) -> list[str]:
    root = PictureStore.of(api.ledger).root
    return sorted(p.name for p in root.iterdir()) if root.exists() else []


async def test_a_picture_sent_is_kept_and_answered_as_a_value_a_batch_sweeps_and_sets(
    api: Api, tmp_path: Path
) -> None:
    store_preset(api.ledger, "img2img", preset_from_api(IMG2IMG, Path("img2img.json")))
    datas = [png(tmp_path, shade) for shade in (1, 2, 3)]
    async with api.client() as http:
        sent = [
            await http.post("/v1/pictures", params={"file": f"render_{i}.png"}, content=data)
            for i, data in enumerate(datas)
        ]
        assert [answer.status_code for answer in sent] == [201] * 3
        values = [answer.json() for answer in sent]
        refs = [PictureRef.from_param(value) for value in values]
        assert [(r.file, r.source, r.size) for r in refs if r] == [
            (f"render_{i}.png", f"api:render_{i}.png", len(data)) for i, data in enumerate(datas)
        ]
        assert [r.sha256 for r in refs if r] == [hashlib.sha256(d).hexdigest() for d in datas]
        swept = await http.post(
            "/v1/batches", json={"preset": "img2img", "grid": {"1.image": values[:2]}}
        )
        assert swept.status_code == 201, swept.text
        one = await http.post(
            "/v1/batches", json={"preset": "img2img", "set": {"1.image": values[2]}}
        )
        assert one.status_code == 201, one.text
        shown = (await http.get(f"/v1/jobs/{one.json()['jobs'][0]}")).json()
    store = PictureStore.of(api.ledger)
    assert [store.read(r) for r in refs if r] == datas
    jobs = [api.ledger.job(job_id) for job_id in swept.json()["jobs"] + one.json()["jobs"]]
    assert [job.params["1.image"] for job in jobs] == values
    assert shown["pictures"] == {
        "1.image": {key: values[2]["picture"][key] for key in ("file", "source", "sha256", "size")}
    }


@pytest.mark.parametrize(
    ("file", "content", "message"),
    [
        ("notes.png", b"a shopping list", "notes.png: not a picture (Pillow cannot read it)"),
        ("empty.png", b"", "empty.png: the file is empty, not a picture"),
        ("", b"x", "file: the picture file's name is required (?file=NAME.png)"),
        ("../up.png", b"x", "file: '../up.png' is not a plain file name"),
        ("a\\b.png", b"x", "file: 'a\\\\b.png' is not a plain file name"),
        ("line\nbreak.png", b"x", "is not a plain file name"),
    ],
)
async def test_what_is_not_a_picture_is_400_naming_the_file_and_nothing_is_kept(
    api: Api, file: str, content: bytes, message: str
) -> None:
    async with api.client() as http:
        answer = await http.post("/v1/pictures", params={"file": file}, content=content)
        unnamed = await http.post("/v1/pictures", content=content)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"] == "bad_request"
    assert message in answer.json()["message"]
    assert unnamed.status_code == 400
    assert kept(api) == []


async def test_a_picture_past_the_limit_is_413_whether_it_says_its_length_or_not(
    api: Api, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = png(tmp_path, 7, size=(64, 64))
    monkeypatch.setattr(pictures_module, "MAX_PICTURE_BYTES", len(data) - 1)

    async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: read until past the limit
        for start in range(0, len(data), 100):
            yield data[start : start + 100]

    async with api.client() as http:
        told = await http.post("/v1/pictures", params={"file": "big.png"}, content=data)
        streamed = await http.post("/v1/pictures", params={"file": "big.png"}, content=chunks())
    for answer in (told, streamed):
        assert (answer.status_code, answer.json()["error"]) == (413, "too_large")
    assert kept(api) == []
    monkeypatch.setattr(pictures_module, "MAX_PICTURE_BYTES", len(data))
    async with api.client() as http:
        just = await http.post("/v1/pictures", params={"file": "big.png"}, content=chunks())
    assert just.status_code == 201, "a picture just at the limit is taken"


def _value(sha256: str, file: str = "x.png", source: str = "api:x.png", size: int = 10) -> Any:
    return PictureRef(sha256, file, source, size).to_param()


async def test_a_batch_sets_only_pictures_the_store_holds_naming_the_field(
    api: Api, tmp_path: Path
) -> None:
    store_preset(api.ledger, "img2img", preset_from_api(IMG2IMG, Path("img2img.json")))
    data = png(tmp_path, 4)
    async with api.client() as http:
        value = (await http.post("/v1/pictures", params={"file": "a.png"}, content=data)).json()
        real = value["picture"]
        made_up = _value("0" * 64, size=len(data))
        artists = _value(real["sha256"], "a.png", "/home/artist/a.png", real["size"])
        wrong_size = _value(real["sha256"], "a.png", "api:a.png", real["size"] + 1)
        bodies: list[tuple[dict[str, Any], str]] = [
            (
                {"grid": {"1.image": [value, made_up]}},
                f"grid.1.image[1]: no picture {'0' * 64} of {len(data)} bytes was sent",
            ),
            ({"set": {"1.image": artists}}, "set.1.image: source must be 'api:a.png'"),
            ({"set": {"1.image": wrong_size}}, "set.1.image: no picture"),
            ({"set": {"1.image": {"picture": {"sha256": real["sha256"]}}}}, "set.1.image: an"),
            ({"grid": {"1.image": [{"not": "a picture"}]}}, "grid.1.image[0]: an object must"),
            (
                {"set": {"1.image": _value(real["sha256"], "../a.png", "api:../a.png")}},
                "set.1.image.picture.file: '../a.png' is not a plain file name",
            ),
            ({"set": {"2.strength": value}}, "does not take a picture file (given a.png)"),
        ]
        answers = [
            await http.post("/v1/batches", json={"preset": "img2img", **body}) for body, _ in bodies
        ]
    for answer, (_, message) in zip(answers, bodies, strict=True):
        assert answer.status_code == 400, answer.text
        assert message in answer.json()["message"]
    assert api.ledger.jobs() == []


async def test_pictures_need_a_token_as_batches_do(api: Api, tmp_path: Path) -> None:
    async with api.client(None) as http:
        answer = await http.post("/v1/pictures", params={"file": "a.png"}, content=png(tmp_path, 1))
    assert answer.status_code == 401
    assert kept(api) == []


async def test_pages_after_the_last_read_miss_none_and_repeat_none_as_pictures_finish(
    api: Api, tmp_path: Path
) -> None:
    """Paged by offset while a batch runs, the pictures it finishes push those read into the
    next page again; paged by ``after``, none is read twice and none is missed."""
    from tests.core.finished_pictures import add_preset, finished

    add_preset(api.ledger)
    pictures = [{"3.seed": n} for n in range(3)]
    _, older = finished(api.ledger, tmp_path / "a", pictures, requester="alice")
    finished(api.ledger, tmp_path / "b", [{"3.seed": 9}], requester="bob")
    async with api.client("alice") as http:
        first = (await http.get("/v1/pictures", params={"limit": "2"})).json()
        assert [p["job"] for p in first["pictures"]] == older[:0:-1]
        assert (first["next"], first["after"] is not None) == (2, True)
        finished(api.ledger, tmp_path / "a", [{"3.seed": 7}], requester="alice")  # meanwhile
        by_offset = await http.get("/v1/pictures", params={"limit": "2", "offset": "2"})
        assert by_offset.json()["pictures"][0]["job"] == older[1], "read twice"
        rest = await http.get("/v1/pictures", params={"limit": "2", "after": first["after"]})
        assert rest.status_code == 200, rest.text
        assert [p["job"] for p in rest.json()["pictures"]] == [older[0]]
        assert (rest.json()["after"], rest.json()["next"]) == (None, None)
        both = await http.get("/v1/pictures", params={"after": "1.0", "offset": "2"})
        assert (both.status_code, both.json()["message"]) == (
            400,
            "after, offset: give one of them",
        )
        wrong = await http.get("/v1/pictures", params={"after": "../etc"})
        assert wrong.status_code == 400
        assert wrong.json()["message"].startswith("after: must be the `after`")


async def test_a_search_finds_the_requesters_own_pictures_only(api: Api, tmp_path: Path) -> None:
    """GET /v1/pictures?q=: the window's query language over the token's own pictures, each
    with the URL that serves it; bob's fox is never alice's to find."""
    from tests.core.finished_pictures import add_preset, finished

    add_preset(api.ledger)
    _, mine = finished(
        api.ledger, tmp_path / "a", [{"3.seed": 1042}, {"3.seed": 7}], requester="alice"
    )
    _, theirs = finished(api.ledger, tmp_path / "b", [{"3.seed": 42}], requester="bob")
    async with api.client("alice") as http:
        answer = await http.get("/v1/pictures", params={"q": "fox seed:*42"})
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert [(p["job"], p["index"]) for p in body["pictures"]] == [(mine[0], 0)]
        assert body["pictures"][0]["url"] == f"/v1/jobs/{mine[0]}/outputs/0"
        assert body["next"] is None
        picture = await http.get(body["pictures"][0]["url"])
        assert picture.content == (tmp_path / "a" / f"{mine[0]}_0.png").read_bytes()
        every = (await http.get("/v1/pictures", params={"limit": "1"})).json()
        assert ([p["job"] for p in every["pictures"]], every["next"]) == ([mine[1]], 1)
        second = (await http.get("/v1/pictures", params={"limit": "1", "offset": "1"})).json()
        assert [p["job"] for p in second["pictures"]] == [mine[0]]
        assert (await http.get("/v1/pictures", params={"q": "seed:42"})).json()["pictures"] == []
        refused = await http.get("/v1/pictures", params={"q": "colour:red"})
        assert refused.status_code == 400
        assert "there is no field 'colour'" in refused.json()["message"]
        bad_limit = await http.get("/v1/pictures", params={"limit": "0"})
        assert bad_limit.status_code == 400
    async with api.client("bob") as http:
        found = (await http.get("/v1/pictures", params={"q": "fox"})).json()["pictures"]
        assert [p["job"] for p in found] == theirs
    async with api.client(None) as http:
        assert (await http.get("/v1/pictures")).status_code == 401
