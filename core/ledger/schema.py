"""The ledger's tables as peewee models (bound per ledger at run time)."""

from __future__ import annotations

import contextlib
import threading
from typing import TYPE_CHECKING, Any

from peewee import (
    AutoField,
    BooleanField,
    CharField,
    CompositeKey,
    DatabaseProxy,
    FloatField,
    ForeignKeyField,
    IntegerField,
    Model,
    SqliteDatabase,
    TextField,
)

if TYPE_CHECKING:
    from collections.abc import Iterator

# "BTLN": marks a SQLite file as a Batchline ledger (PRAGMA application_id).
APPLICATION_ID = 0x42544C4E
# PRAGMA user_version of a ledger this code writes; database.MIGRATIONS bring older ones up to it.
SCHEMA_VERSION = 14


class ThreadLocalDatabase(DatabaseProxy):
    """The models' database: whichever ledger database the current thread is working in.

    Several ledgers may be open in one process (the app's and the demo's, a test's CLI thread
    beside a controller); binding the model classes globally would let one thread's ledger
    swap another's database mid-query, so each thread selects its own with ``using``.
    """

    __slots__ = ("_local",)

    def __init__(self) -> None:
        object.__setattr__(self, "_local", threading.local())
        super().__init__()

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)

    @property
    def obj(self) -> Any:
        return getattr(self._local, "database", None)

    @obj.setter
    def obj(self, database: Any) -> None:
        self._local.database = database

    @contextlib.contextmanager
    def using(self, database: SqliteDatabase) -> Iterator[None]:
        previous = self.obj
        self.obj = database
        try:
            yield
        finally:
            self.obj = previous


database_proxy = ThreadLocalDatabase()


class BaseModel(Model):
    class Meta:
        database = database_proxy
        legacy_table_names = False


class Counter(BaseModel):
    """Next free number per id family and UTC date (job ids, batch ids, the change feed)."""

    key = CharField(primary_key=True)
    value = IntegerField()


class Workflow(BaseModel):
    """An API-format workflow, stored once by the sha256 of its canonical JSON."""

    hash = CharField(primary_key=True)
    api_json = TextField()


class Preset(BaseModel):
    id = AutoField()
    name = CharField(unique=True)
    workflow_hash: str
    workflow = ForeignKeyField(Workflow, column_name="workflow_hash")
    editor_json = TextField(null=True)  # the editor-format graph, when the source had one
    source = TextField(default="")  # the file it was loaded from
    info_json = TextField(default="{}")  # what Batchline learned: seed inputs, notices, ...
    created_at = FloatField()
    updated_at = FloatField()
    # Who stored it (its owner) and who last changed it, as owners.Actor keys (schema 9).
    stored_by = CharField()
    changed_by = CharField()


class PresetVersion(BaseModel):
    """Every content a preset has held, numbered from 1 (schema 14): replacing a preset's
    content adds a version, so the old one is never lost."""

    id = AutoField()
    preset = ForeignKeyField(Preset, on_delete="CASCADE", backref="versions")
    number = IntegerField()
    workflow_hash: str
    workflow = ForeignKeyField(Workflow, column_name="workflow_hash")
    editor_json = TextField(null=True)
    source = TextField(default="")
    info_json = TextField(default="{}")
    created_at = FloatField()
    stored_by = CharField()  # who made this version, as an owners.Actor key
    origin = TextField(default="")  # where it came from, e.g. the ComfyUI address it was sent from

    class Meta:
        indexes = ((("preset", "number"), True),)


class Batch(BaseModel):
    id = CharField(primary_key=True)
    workflow_hash: str
    preset = CharField()  # the preset's name when the batch was made (presets may go later)
    workflow = ForeignKeyField(Workflow, column_name="workflow_hash")
    requester = CharField()
    priority = IntegerField(default=0)
    spec_json = TextField(default="{}")
    created_at = FloatField()
    name = CharField(null=True)  # the artist's name for the batch, if any (schema 7)


class Job(BaseModel):
    batch_id: str
    id = CharField(primary_key=True)
    batch = ForeignKeyField(Batch, column_name="batch_id", index=True)
    requester = CharField(index=True)
    params_json = TextField()  # exactly the values this job varies, "NODE.INPUT" -> value
    priority = IntegerField(default=0)
    state = CharField(index=True)
    reason = CharField(null=True)
    warning = TextField(null=True)
    attempt = IntegerField(default=1)  # the current attempt's number
    auto_attempts = IntegerField(default=1)  # attempts opened since the last manual retry
    created_at = FloatField()
    updated_at = FloatField()
    started_at = FloatField(null=True)  # the current attempt's start, when it ran (schema 2)
    finished_at = FloatField(null=True)  # when the job reached a terminal state (schema 2)
    seq = IntegerField(index=True)  # change-feed position: bumped by every write to the job


class Attempt(BaseModel):
    job_id: str
    id = AutoField()
    job = ForeignKeyField(Job, column_name="job_id", backref="attempts", on_delete="CASCADE")
    n = IntegerField()
    prompt_id = CharField(unique=True)
    server = CharField()
    number = FloatField(null=True)  # ComfyUI's queue number
    result = CharField(index=True)  # live attempts are found by result (schema 2)
    reason = CharField(null=True)
    error_json = TextField(null=True)  # node id, node type, exception type, message, kind
    workflow_hash = CharField()
    stalled = BooleanField(default=False)
    created_at = FloatField()
    queued_at = FloatField(null=True)
    started_at = FloatField(null=True)
    finished_at = FloatField(null=True)
    outputs_json = TextField(default="[]")  # the pictures fetched: local paths
    # Where a success left its pictures on the server ({"images": [...], "note": ...}),
    # recorded with the success itself, before they are fetched (schema 8).
    refs_json = TextField(null=True)
    # Why the attempt went to its server ("gpu-2: the only server with X"), said by the
    # dispatcher when it wrote the attempt (schema 10).
    placed_because = TextField(null=True)

    class Meta:
        indexes = ((("job", "n"), True),)


# Each requester's pending line in admission order, for index-only admission (schema 2).
Job.add_index(Job.index(Job.state, Job.requester, Job.priority.desc(), name="job_pending_line"))


class Transition(BaseModel):
    job_id: str
    id = AutoField()
    job = ForeignKeyField(Job, column_name="job_id", backref="transitions", on_delete="CASCADE")
    attempt = IntegerField()
    at = FloatField()
    from_state = CharField()
    to_state = CharField()
    cause = TextField()


class Setting(BaseModel):
    key = CharField(primary_key=True)
    value_json = TextField()


class ControllerRun(BaseModel):
    """The running (or last) controller of the ledger: one row, replaced by each new one."""

    id = IntegerField(primary_key=True)  # always 1
    run_id = CharField()
    pid = IntegerField()
    origin = CharField()  # "app": started by the desktop app; "terminal": by hand
    started_at = FloatField()
    updated_at = FloatField()
    stopped_at = FloatField(null=True)
    status_json = TextField()
    stop_requested = BooleanField(default=False)
    exit_when_idle = BooleanField(default=False)  # stop once nothing is left (window in tray)

    class Meta:
        table_name = "controller_run"


class ServerOffer(BaseModel):
    """What one server can run, as the controller last read it (schema 10)."""

    server = CharField(primary_key=True)  # the server's address, as the settings list it
    offer_json = TextField()  # core.placement.stored's form
    read_at = FloatField()

    class Meta:
        table_name = "server_offer"


class ServerPicture(BaseModel):
    """The name one server gave one input picture when Batchline uploaded it (schema 11)."""

    server = CharField()  # the server's address, as the settings list it
    sha256 = CharField()  # the picture's content hash (core.inputs.PictureRef.sha256)
    value = CharField()  # what its prompts name it by: "batchline/<the name it returned>"
    uploaded_at = FloatField()

    class Meta:
        table_name = "server_picture"
        primary_key = CompositeKey("server", "sha256")


class ApiToken(BaseModel):
    """A requester of the HTTP API: its name and the sha256 of its token (never the token)."""

    name = CharField(primary_key=True)
    token_hash = CharField(unique=True)
    created_at = FloatField()
    last_used_at = FloatField(null=True)

    class Meta:
        table_name = "api_token"


class Mark(BaseModel):
    """The artist's verdict on a job's pictures: "star" (keep) or "reject"."""

    job = ForeignKeyField(Job, column_name="job_id", primary_key=True, on_delete="CASCADE")
    job_id: str
    mark = CharField()
    at = FloatField()

    class Meta:
        table_name = "mark"


class SavedSearch(BaseModel):
    """A search the artist keeps under a name, shown as a board beside the batches (schema 12)."""

    name = CharField(primary_key=True)
    query = TextField()  # in the query language of core.pictures.search_query
    created_at = FloatField()
    updated_at = FloatField()

    class Meta:
        table_name = "saved_search"


# The picture search's own tables (picture_entry, picture_file, the FTS5 table picture_text and
# its triggers) are SQL, made by core.ledger.picture_index.create_tables (schema 12).
class BatchNotice(BaseModel):
    """What a batch's end tells the artist, and what it has told (schema 13): its own choices
    (the desktop notification on or off, a webhook), then, once its end was seen, that it was
    announced (so no controller, nor a restart, announces it again) and how its webhook went.
    A batch without a row has the defaults: notified on the desktop, no webhook."""

    batch = ForeignKeyField(Batch, column_name="batch_id", primary_key=True, on_delete="CASCADE")
    batch_id: str
    desktop = BooleanField(default=True)  # the artist may turn it off for this batch
    webhook_url = TextField(null=True)
    webhook_template = CharField(default="json")  # core.notify.webhook_bodies.TEMPLATES
    ended_at = FloatField(null=True)  # when a controller saw it end and took it on to announce
    ended_state = CharField(null=True)  # "finished", "failed", "cancelled"
    desktop_how = CharField(null=True)  # "sent", "no_server" (a window's tray may), "tray", "off"
    attention = TextField(default="")  # the attention notices sent, comma-separated kinds
    webhook_state = CharField(null=True)  # "pending", "sent", "given_up"
    webhook_body = TextField(null=True)  # the JSON sent, made once at the end
    webhook_tries = IntegerField(default=0)
    webhook_error = TextField(null=True)

    class Meta:
        table_name = "batch_notice"


MODELS: tuple[type[BaseModel], ...] = (
    Counter,
    Workflow,
    Preset,
    PresetVersion,
    Batch,
    Job,
    Attempt,
    Transition,
    Setting,
    ControllerRun,
    ApiToken,
    Mark,
    ServerOffer,
    ServerPicture,
    SavedSearch,
    BatchNotice,
)
