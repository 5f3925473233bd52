"""Benchmark: the picture search over a ledger of 100,000 finished jobs and their pictures.

Builds a ledger (1,000 batches of 100 jobs of a txt2img preset with a LoRA; each job a real
16x16 PNG on disk; prompts, seeds, cfg, samplers, models and LoRAs varied; 5 % starred, 5 %
rejected; finished over 60 days), its jobs written straight in SQL and the index built by
migration 12's own code (``picture_index.rebuild``, timed). Then runs a mix of queries through
``core.pictures.search.search`` (a page of 100, what the library shows first) and prints the
p50 and p95 of each kind and of all (target: p95 <= 50 ms), a success's write with its index
row, and the index's size beside the ledger's.
Run: `make bench-more` or `.venv/bin/python -m bench.search [JOBS]`.
"""

from __future__ import annotations

import io
import json
import random
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from unittest import mock

from PIL import Image

from core.ledger import Ledger, NewJob, PresetContent, picture_index, transitions
from core.pictures.search import search

PRESET = Path(__file__).resolve().parent.parent / "resources" / "presets"
TXT2IMG = PRESET / "Portrait txt2img (SD 1.5).json"
PER_BATCH = 100
SUBJECTS = ("fox", "cat", "owl", "wolf", "deer", "heron", "otter", "lynx", "badger", "hare")
PLACES = ("misty forest", "snowy field", "city at night", "desert dunes", "river bank")
STYLES = ["soft light", "oil painting", "watercolor", "cinematic", "35mm film", "ink sketch"]
MODELS = [f"{name}.safetensors" for name in ("sd15", "dreamshaper_8", "realistic_v5", "anything")]
LORAS = [f"{name}.safetensors" for name in ("detail_tweaker", "film_grain", "refiner_xl")]
SAMPLERS = ["euler", "euler_ancestral", "dpmpp_2m", "ddim"]
REQUESTERS = ["artist"] * 8 + ["studio-bot", "render-farm"]
DAY = 86400.0
QUERIES = {
    "one word": ["fox", "owl", "heron", "forest", "watercolor", "cinematic"],
    "words": ["fox snow", "owl forest cinematic", "red fox misty", "cat night"],
    "phrase": ['"red fox"', '"oil painting"', '"city at night"'],
    "prefix": ["fo*", "wat*", "cine*"],
    "seed": ["seed:*42", "seed:*7", "seed:123*", "seed:4242"],
    "field": ["model:dreamshaper", "lora:refiner", "value:cfg=7.5", "value:ddim", "batch:evening"],
    "marks": ["is:starred", "fox is:starred", "is:rejected -fox", "is:unmarked owl"],
    "negation": ["fox -snow", "-fox", "owl -watercolor -cinematic"],
    "dates": ["date:{day}", "fox after:{day}", "before:{day} owl"],
    "the issue's": ["fox lora:refiner seed:*42", "fox refiner seed:*42"],
    "empty": [""],
}


def workflow() -> dict[str, object]:
    """The bundled portrait preset with a LoRA between its checkpoint and its sampler."""
    api = json.loads(TXT2IMG.read_text())
    api["10"] = {
        "class_type": "LoraLoader",
        "inputs": {
            "lora_name": LORAS[0],
            "strength_model": 0.8,
            "strength_clip": 0.8,
            "model": ["4", 0],
            "clip": ["4", 1],
        },
    }
    api["3"]["inputs"]["model"] = ["10", 0]
    api["6"]["inputs"]["clip"] = ["10", 1]
    return api


def job_params(rng: random.Random, model: str) -> dict[str, object]:
    prompt = (
        f"portrait of a {rng.choice(['red', 'grey', 'white'])} {rng.choice(SUBJECTS)} in a "
        f"{rng.choice(PLACES)}, {rng.choice(STYLES)}"
    )
    return {
        "3.seed": rng.randrange(2**32),
        "3.cfg": rng.choice([5.0, 6.5, 7.5, 9.0]),
        "3.sampler_name": rng.choice(SAMPLERS),
        "6.text": prompt,
        "4.ckpt_name": model,
        "10.lora_name": rng.choice(LORAS),
    }


def png_bytes(n: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (16, 16), (n % 256, (n // 256) % 256, 128)).save(out, "PNG")
    return out.getvalue()


def build(home: Path, jobs: int) -> tuple[float, float]:
    """The ledger of ``jobs`` finished jobs with their pictures; seconds to write the
    pictures, and to build the index."""
    rng = random.Random(31)
    pictures = home / "pictures"
    pictures.mkdir(parents=True)
    start = time.time() - 60 * DAY
    with Ledger(home) as ledger:
        ledger.presets.add("Portrait", PresetContent("bench-portrait", workflow()))
        ids: list[str] = []
        for b in range(jobs // PER_BATCH):
            model = rng.choice(MODELS)
            new = [NewJob(job_params(rng, model)) for _ in range(PER_BATCH)]
            name = rng.choice(["Evening foxes", "Owls at dusk", None, None, "Study"])
            ids += ledger.create_batch(
                "Portrait", new, requester=REQUESTERS[b % len(REQUESTERS)], name=name
            )[1]
        paths = [pictures / f"{job_id}.png" for job_id in ids]
        began = time.perf_counter()
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda n: paths[n].write_bytes(png_bytes(n)), range(len(ids))))
        written = time.perf_counter() - began
        rows = [
            (job_id, f"p-{job_id}", f"http://gpu-{n % 3 + 1}:8188", json.dumps([str(path)]))
            for n, (job_id, path) in enumerate(zip(ids, paths, strict=True))
        ]
        finished = {job_id: start + n * 60 * DAY / len(ids) for n, job_id in enumerate(ids)}
        database = ledger.handle.database
        with ledger.handle.tx():
            database.cursor().executemany(
                "INSERT INTO attempt (job_id, n, prompt_id, server, result, workflow_hash,"
                " stalled, created_at, outputs_json) VALUES (?, 1, ?, ?, 'succeeded',"
                " 'bench-portrait', 0, 0, ?)",
                rows,
            )
            database.cursor().executemany(
                "UPDATE job SET state = 'succeeded', started_at = ?, finished_at = ? WHERE id = ?",
                [(at - 5, at, job_id) for job_id, at in finished.items()],
            )
            database.cursor().executemany(
                "INSERT INTO mark (job_id, mark, at) VALUES (?, ?, 0)",
                [
                    (job_id, rng.choice(["star", "reject"]))
                    for job_id in rng.sample(ids, len(ids) // 10)
                ],
            )
        began = time.perf_counter()
        with ledger.handle.tx():
            picture_index.rebuild(database)
        indexed = time.perf_counter() - began
        database.execute_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    return written, indexed


def timed_queries(home: Path) -> dict[str, list[float]]:
    day = time.strftime("%Y-%m-%d", time.localtime(time.time() - 20 * DAY))
    times: dict[str, list[float]] = {}
    with Ledger(home) as ledger:
        for _ in range(2):  # the first round warms the page cache, as a window's first search does
            times = {kind: [] for kind in QUERIES}
            for kind, queries in QUERIES.items():
                for query in queries:
                    for requester in (None, "studio-bot"):
                        text = query.format(day=day)
                        began = time.perf_counter()
                        search(ledger, text, requester=requester, limit=100)
                        times[kind].append(time.perf_counter() - began)
                    began = time.perf_counter()
                    search(ledger, query.format(day=day), limit=100, offset=2000)
                    times[kind].append(time.perf_counter() - began)
    return times


def success_cost(home: Path, count: int = 300, *, indexed: bool = True) -> float:
    """Milliseconds of one success recorded through the verbs, its index row with it (or, not
    ``indexed``, without: the same verbs before the index)."""
    if not indexed:
        with mock.patch.object(transitions, "index_job", return_value=None):
            return success_cost(home, count)
    rng = random.Random(7)
    with Ledger(home) as ledger:
        new = [NewJob(job_params(rng, MODELS[0])) for _ in range(count)]
        ids = ledger.create_batch("Portrait", new, requester="artist")[1]
        for job_id in ids:
            ledger.submit_attempt(job_id, f"s-{job_id}", "http://gpu-1:8188", "bench-portrait")
            ledger.observe_running(f"s-{job_id}")
            ledger.observe_succeeded(f"s-{job_id}", [])
        began = time.perf_counter()
        for job_id in ids:
            ledger.observe_fetched(f"s-{job_id}", [f"{job_id}.png"])
        return (time.perf_counter() - began) * 1000 / count


def sizes(home: Path) -> tuple[int, int]:
    """The index's bytes (its tables, their indexes, FTS5's shadow tables) and the ledger's."""
    with Ledger(home) as ledger:
        rows = ledger.handle.database.execute_sql(
            "SELECT name, SUM(pgsize) FROM dbstat GROUP BY name"
        ).fetchall()
        total = sum(size for _, size in rows)
    index = sum(size for name, size in rows if "picture_" in name)
    return index, total


def p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000


def main() -> int:
    jobs = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        written, indexed = build(home, jobs)
        print(f"{jobs:,} finished jobs, one PNG each: pictures written in {written:.1f} s")
        print(f"index built by migration 12's code: {indexed:.1f} s")
        times = timed_queries(home)
        for kind, values in times.items():
            print(f"  {kind:12} p50 {p(values, 0.5):6.1f} ms   p95 {p(values, 0.95):6.1f} ms")
        every = [t for values in times.values() for t in values]
        print(
            f"full-text search p95: {p(every, 0.95):.1f} ms (target <= 50 ms), "
            f"max {max(every) * 1000:.1f} ms, {len(every)} searches"
        )
        with_row, without = success_cost(home), success_cost(home, indexed=False)
        print(f"a success recorded: {with_row:.2f} ms with its index row, {without:.2f} without")
        index, total = sizes(home)
        print(
            f"index size: {index / 2**20:.1f} MiB of the ledger's {total / 2**20:.1f} MiB "
            f"({100 * index / total:.0f} %)"
        )
        print(f"median search: {statistics.median(every) * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
