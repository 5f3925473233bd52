"""The picture search's index inside the ledger (schema 12): one full-text row (SQLite FTS5)
per finished job with pictures, its pictures listed beside it, kept in step by the ledger's own
writes.

- A job's row is written by the write that makes it succeed (``index_job``, called by
  ``observe_fetched`` in its transaction), from its workflow and values (``picture_terms``),
  its batch, server, requester and mark.
- Marks, batch names and deleted jobs are followed by SQL triggers, whatever writes them.
- A picture moved to the trash leaves the index (``PictureIndex.forget``, called by the trash).
- Migration 12 builds the rows of the jobs that had succeeded before (``rebuild``).

Rows are numbered in the order their jobs finished, so "newest first" is the full-text
table's own order (``rowid DESC``): a search stops after one page however many rows match.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from core.catalogue import Catalogue
from core.ledger import schema
from core.ledger.picture_terms import JobTerms, WorkflowTerms

if TYPE_CHECKING:
    from collections.abc import Sequence

    from peewee import SqliteDatabase

    from core.ledger.handle import LedgerHandle

# The full-text columns, as the query language's fields name them (core.pictures.search_query).
TEXT_COLUMNS = (
    "prompt",
    "negative",
    "seed",
    "seed_end",  # each seed's digits reversed: "seed ending 42" is the prefix query "24"*
    "preset",
    "model",
    "lora",
    "value",
    "mark",
    "batch",
    "server",
    "requester",
)
# Columns a plain word is not looked for in (only their own fields search them).
HIDDEN_COLUMNS = ("seed_end", "requester")
MARK_WORDS = {"star": "starred", "reject": "rejected"}

TABLES = (
    """CREATE TABLE IF NOT EXISTS picture_entry (
        id INTEGER PRIMARY KEY,
        job_id TEXT NOT NULL UNIQUE REFERENCES job (id) ON DELETE CASCADE,
        batch_id TEXT NOT NULL,
        requester TEXT NOT NULL,
        finished_at REAL NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS picture_entry_batch ON picture_entry (batch_id)",
    "CREATE INDEX IF NOT EXISTS picture_entry_requester ON picture_entry (requester, id)",
    "CREATE INDEX IF NOT EXISTS picture_entry_finished ON picture_entry (finished_at)",
    """CREATE TABLE IF NOT EXISTS picture_file (
        entry INTEGER NOT NULL REFERENCES picture_entry (id) ON DELETE CASCADE,
        n INTEGER NOT NULL,
        path TEXT NOT NULL,
        PRIMARY KEY (entry, n)) WITHOUT ROWID""",
    f"""CREATE VIRTUAL TABLE IF NOT EXISTS picture_text USING fts5(
        {", ".join(TEXT_COLUMNS)}, tokenize = 'unicode61 remove_diacritics 2')""",
    # The triggers: the index follows marks, batch names and deleted rows whoever writes them.
    f"""CREATE TRIGGER IF NOT EXISTS picture_mark_set AFTER INSERT ON mark BEGIN
        UPDATE picture_text SET mark = CASE NEW.mark
            WHEN 'star' THEN '{MARK_WORDS["star"]}' WHEN 'reject' THEN '{MARK_WORDS["reject"]}'
            ELSE '' END
        WHERE rowid = (SELECT id FROM picture_entry WHERE job_id = NEW.job_id); END""",
    """CREATE TRIGGER IF NOT EXISTS picture_mark_cleared AFTER DELETE ON mark BEGIN
        UPDATE picture_text SET mark = ''
        WHERE rowid = (SELECT id FROM picture_entry WHERE job_id = OLD.job_id); END""",
    """CREATE TRIGGER IF NOT EXISTS picture_batch_named AFTER UPDATE OF name ON batch BEGIN
        UPDATE picture_text SET batch = NEW.id || ' ' || COALESCE(NEW.name, '')
        WHERE rowid IN (SELECT id FROM picture_entry WHERE batch_id = NEW.id); END""",
    """CREATE TRIGGER IF NOT EXISTS picture_job_gone AFTER DELETE ON job BEGIN
        DELETE FROM picture_entry WHERE job_id = OLD.id; END""",
    """CREATE TRIGGER IF NOT EXISTS picture_entry_gone AFTER DELETE ON picture_entry BEGIN
        DELETE FROM picture_text WHERE rowid = OLD.id;
        DELETE FROM picture_file WHERE entry = OLD.id; END""",
)


class DateSpan(NamedTuple):
    """Pictures finished in [start, end) (None: unbounded), or outside it when not ``inside``."""

    start: float | None
    end: float | None
    inside: bool = True


@dataclass(frozen=True)
class PictureQuery:
    """A search as the index runs it: FTS5 expressions (``core.pictures.search_query`` writes
    them) and spans of dates."""

    match: str | None = None  # what a picture's row must match
    exclude: str | None = None  # what it must not
    spans: tuple[DateSpan, ...] = ()


_PLACE = re.compile(r"([0-9]{1,18})\.([0-9]{1,9})")


class Place(NamedTuple):
    """Where a picture stands in a search's order: its job's row in the index (``entry``) and
    its place among the job's pictures (``n``); written ``ENTRY.N`` (the API's ``after``)."""

    entry: int
    n: int

    def text(self) -> str:
        return f"{self.entry}.{self.n}"

    @classmethod
    def read(cls, text: str) -> Place | None:
        """``12.0`` -> Place(12, 0); None for anything else."""
        found = _PLACE.fullmatch(text)
        return cls(int(found[1]), int(found[2])) if found else None


@dataclass(frozen=True)
class PictureHit:
    """One picture a search found: its job, its place among the job's pictures, its file as
    recorded (relative ones under the output folder), when its job finished, and its job's row
    in the index (``entry``: where a page that follows it starts, ``search(after=)``)."""

    job_id: str
    batch_id: str
    index: int
    path: Path
    finished_at: float
    entry: int

    @property
    def place(self) -> Place:
        return Place(self.entry, self.index)


def create_tables(db: SqliteDatabase) -> None:
    """The index's tables and triggers (a new ledger, and migration 12)."""
    for statement in TABLES:
        db.execute_sql(statement)


def rebuild(db: SqliteDatabase) -> None:
    """Index every job that succeeded with pictures, in the order they finished (migration 12):
    a few statements, each workflow read once, however many jobs.

    A job's pictures are its latest attempt's with outputs recorded (as ``recorded_outputs``).
    """
    db.execute_sql("DELETE FROM picture_entry")
    latest: dict[str, tuple[list[str], str]] = {}
    for job_id, outputs_json, server in db.execute_sql(_FINISHED_OUTPUTS).fetchall():
        outputs = json.loads(outputs_json or "[]")
        if outputs:
            latest[job_id] = ([str(path) for path in outputs], server)
    facts = {row[0]: row[1:] for row in db.execute_sql(_FINISHED_FACTS).fetchall()}
    plans = _Plans(db)
    rows = [
        _rows(entry, job_id, *latest[job_id], facts[job_id], plans)
        for entry, job_id in enumerate(latest, start=1)
    ]
    cursor = db.cursor()
    cursor.executemany(_INSERT_ENTRY, [row.entry for row in rows])
    cursor.executemany(_INSERT_TEXT, [row.text for row in rows])
    cursor.executemany(_INSERT_FILE, [file for row in rows for file in row.files])
    # One b-tree of the index's words in place of the segments written on the way: smaller,
    # and each search reads one.
    db.execute_sql("INSERT INTO picture_text (picture_text) VALUES ('optimize')")


def index_job(job_id: str, outputs: Sequence[str], server: str) -> None:
    """Index the job that has just succeeded with ``outputs`` on ``server`` (in its tx)."""
    if not outputs:
        return
    database = schema.database_proxy
    facts = database.execute_sql(_JOB_FACTS, (job_id,)).fetchone()
    database.execute_sql("DELETE FROM picture_entry WHERE job_id = ?", (job_id,))
    (last,) = database.execute_sql("SELECT COALESCE(MAX(id), 0) FROM picture_entry").fetchone()
    rows = _rows(int(last) + 1, job_id, list(outputs), server, facts[1:], _Plans(database))
    database.execute_sql(_INSERT_ENTRY, rows.entry)
    database.execute_sql(_INSERT_TEXT, rows.text)
    database.cursor().executemany(_INSERT_FILE, rows.files)


class _Plans(dict[str, WorkflowTerms]):
    """Each workflow's terms, read from the ledger once (by hash)."""

    def __init__(self, db: Any) -> None:
        super().__init__()
        self._db = db

    def __missing__(self, workflow_hash: str) -> WorkflowTerms:
        (api_json,) = self._db.execute_sql(_WORKFLOW, (workflow_hash,)).fetchone()
        plan = self[workflow_hash] = _plan(api_json)
        return plan


@functools.lru_cache(maxsize=32)
def _plan(api_json: str) -> WorkflowTerms:
    """A workflow's terms, kept for the next success of a job of the same workflow (a batch's
    jobs share it): by its text, since the hashes of tests' ledgers name what they like."""
    return WorkflowTerms(json.loads(api_json), Catalogue.bundled())


class _Rows(NamedTuple):
    """One job's rows in the index's three tables."""

    entry: tuple[Any, ...]
    text: tuple[Any, ...]
    files: list[tuple[int, int, str]]


def _rows(
    entry: int,
    job_id: str,
    outputs: list[str],
    server: str,
    facts: Sequence[Any],
    plans: _Plans,
) -> _Rows:
    """The rows of job ``job_id`` (its ``_JOB_FACTS`` but the id), numbered ``entry``;
    ``plans`` keeps each workflow's terms once read."""
    params_json, batch_id, requester, finished_at, preset, name, hash_, mark = facts
    terms = plans[hash_].of(json.loads(params_json))
    texts = _texts(terms, preset, f"{batch_id} {name or ''}", server, requester, mark)
    return _Rows(
        (entry, job_id, batch_id, requester, finished_at),
        (entry, *texts),
        [(entry, n, path) for n, path in enumerate(outputs)],
    )


def _texts(
    terms: JobTerms, preset: str, batch: str, server: str, requester: str, mark: str | None
) -> tuple[str, ...]:
    """The row's column texts, in ``TEXT_COLUMNS`` order."""
    seeds = [str(seed) for seed in terms.seeds]
    return (
        terms.prompt,
        terms.negative,
        " ".join(seeds),
        " ".join(seed[::-1] for seed in seeds),
        preset,
        "\n".join(terms.models),
        "\n".join(terms.loras),
        "\n".join(terms.values),
        MARK_WORDS.get(mark or "", ""),
        batch,
        server,
        requester,
    )


class PictureIndex:
    """Searching the index, and taking a trashed picture out of it."""

    def __init__(self, handle: LedgerHandle) -> None:
        self._handle = handle

    def search(
        self,
        query: PictureQuery,
        *,
        requester: str | None = None,
        limit: int = 100,
        offset: int = 0,
        after: Place | None = None,
        newer: Place | None = None,
    ) -> list[PictureHit]:
        """The pictures ``query`` finds (of ``requester`` alone when given), newest first (the
        order their jobs finished in), a job's pictures in their order: ``limit`` of them from
        the ``offset``-th, or those that follow the place ``after`` (a hit of this search's),
        or those of jobs that finished after the one at ``newer`` (the newest first).

        A page read ``after`` costs the same however deep it is (an offset is counted row by
        row: 20 ms a page 90,000 pictures down), and pictures that finish meanwhile, which
        come first, do not push the ones already read into it again."""
        sql, params = _search_sql(query, requester, after, newer)
        with self._handle.read():
            rows = self._handle.database.execute_sql(sql, (*params, limit, offset)).fetchall()
        return [
            PictureHit(job_id, batch_id, int(n), Path(path), float(finished), int(entry))
            for job_id, batch_id, n, path, finished, entry in rows
        ]

    def forget(self, job_id: str, path: Path) -> None:
        """Take job ``job_id``'s picture ``path`` out of the index (moved to the trash); its
        job's row goes with its last picture."""
        with self._handle.tx():
            database = schema.database_proxy
            files = database.execute_sql(_FILES_OF_JOB, (job_id,)).fetchall()
            gone = [(entry, n) for entry, n, recorded in files if _same(Path(recorded), path)]
            for entry, n in gone:
                database.execute_sql(
                    "DELETE FROM picture_file WHERE entry = ? AND n = ?", (entry, n)
                )
            if gone and len(gone) == len(files):
                database.execute_sql("DELETE FROM picture_entry WHERE id = ?", (gone[0][0],))

    def count(self) -> int:
        """How many jobs the index holds."""
        with self._handle.read():
            (n,) = self._handle.database.execute_sql(
                "SELECT COUNT(*) FROM picture_entry"
            ).fetchone()
            return int(n)


def _same(recorded: Path, path: Path) -> bool:
    """Whether ``path`` is the recorded one (which may be relative to the output folder)."""
    return recorded == path or (
        not recorded.is_absolute() and path.parts[-len(recorded.parts) :] == recorded.parts
    )


def _search_sql(
    query: PictureQuery,
    requester: str | None,
    after: Place | None = None,
    newer: Place | None = None,
) -> tuple[str, list[Any]]:
    """The statement of a search and its parameters (but the page's limit and offset); the
    rows that follow ``after``'s in the order `_BY_TEXT` and `_BY_ENTRY` read, those of jobs
    newer than ``newer``'s."""
    conditions: list[str] = []
    params: list[Any] = []
    row = "e.id" if query.match is None else "picture_text.rowid"  # the one FTS5 ranges
    if after is not None:  # older jobs, or the same job's later pictures
        conditions.append(f"{row} <= ? AND (e.id < ? OR f.n > ?)")
        params.extend((after.entry, after.entry, after.n))
    if newer is not None:
        conditions.append(f"{row} > ?")
        params.append(newer.entry)
    match = query.match
    if match is not None and requester is not None and _has_words(requester):
        # The index narrows to the requester's rows; the equality below makes it exact.
        match = f"({match}) AND requester : {fts_string(requester)}"
    if match is not None and query.exclude is not None:
        match = f"({match}) NOT ({query.exclude})"
    elif query.exclude is not None:
        conditions.append("e.id NOT IN (SELECT rowid FROM picture_text WHERE picture_text MATCH ?)")
        params.append(query.exclude)
    if requester is not None:
        conditions.append("e.requester = ?")
        params.append(requester)
    for span in query.spans:
        inside = " AND ".join(
            f"e.finished_at {op} ?"
            for op, bound in ((">=", span.start), ("<", span.end))
            if bound is not None
        )
        if inside:
            conditions.append(f"({inside})" if span.inside else f"NOT ({inside})")
            params.extend(bound for bound in (span.start, span.end) if bound is not None)
    if match is None:
        where = f"WHERE {' AND '.join(conditions)}" if conditions else ""
        return _BY_ENTRY.format(where=where), params
    where = " AND ".join(["picture_text MATCH ?", *conditions])
    return _BY_TEXT.format(where=where), [match, *params]


def _has_words(text: str) -> bool:
    """Whether ``text`` holds a letter or a digit: a word of the index's tokenizer."""
    return any(unicodedata.category(char)[0] in "LN" for char in text)


def fts_string(text: str) -> str:
    """``text`` as one FTS5 string (a phrase of its words): quoted, its quotes doubled."""
    return '"' + text.replace('"', '""') + '"'


# FTS5 streams its matches newest first only when ordered by its rowid alone (two terms would
# sort every match): a job's pictures then come in the order of picture_file's key, (entry, n).
_COLUMNS = "e.job_id, e.batch_id, f.n, f.path, e.finished_at, e.id"
_BY_TEXT = f"""
    SELECT {_COLUMNS} FROM picture_text
    JOIN picture_entry AS e ON e.id = picture_text.rowid
    JOIN picture_file AS f ON f.entry = e.id
    WHERE {{where}} ORDER BY picture_text.rowid DESC LIMIT ? OFFSET ?"""
_BY_ENTRY = f"""
    SELECT {_COLUMNS} FROM picture_entry AS e JOIN picture_file AS f ON f.entry = e.id
    {{where}} ORDER BY e.id DESC, f.n LIMIT ? OFFSET ?"""
_INSERT_ENTRY = (
    "INSERT INTO picture_entry (id, job_id, batch_id, requester, finished_at)"
    " VALUES (?, ?, ?, ?, ?)"
)
_INSERT_TEXT = (
    f"INSERT INTO picture_text (rowid, {', '.join(TEXT_COLUMNS)})"
    f" VALUES ({', '.join('?' * (len(TEXT_COLUMNS) + 1))})"
)
_INSERT_FILE = "INSERT INTO picture_file (entry, n, path) VALUES (?, ?, ?)"
_FACTS = """
    SELECT job.id, job.params_json, job.batch_id, job.requester,
      COALESCE(job.finished_at, job.updated_at), batch.preset, batch.name, batch.workflow_hash,
      mark.mark
    FROM job JOIN batch ON batch.id = job.batch_id
    LEFT JOIN mark ON mark.job_id = job.id"""
_JOB_FACTS = _FACTS + " WHERE job.id = ?"
_WORKFLOW = "SELECT api_json FROM workflow WHERE hash = ?"
_FINISHED_FACTS = _FACTS + " WHERE job.state = 'succeeded'"
# Each succeeded job's attempts with outputs, the latest last, the jobs in the order they ended.
_FINISHED_OUTPUTS = """
    SELECT job.id, attempt.outputs_json, attempt.server FROM job
    JOIN attempt ON attempt.job_id = job.id
    WHERE job.state = 'succeeded' AND attempt.outputs_json NOT IN ('[]', '')
    ORDER BY COALESCE(job.finished_at, job.updated_at), job.rowid, attempt.n"""
_FILES_OF_JOB = """
    SELECT f.entry, f.n, f.path FROM picture_entry AS e JOIN picture_file AS f ON f.entry = e.id
    WHERE e.job_id = ?"""
