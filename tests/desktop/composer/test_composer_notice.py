"""Tests for desktop.composer.composer_notice: what the composer says of a batch (its place in
line and its wait, a refusal before Queue, what queueing did), read in a real composer."""

from __future__ import annotations

from core.controller.status import ServerStatus
from core.ledger import NewJob
from tests.core.helpers import succeed


def test_the_wait_follows_comfyui_s_queue(composer, controller, ledger, preset_name) -> None:
    controller.push(server_queue=0, in_flight=0)
    composer.seeds.count.setValue(1)
    assert composer.notice.isHidden(), "an empty queue: no place in line to tell"
    composer.seeds.count.setValue(4)
    assert composer.notice.text() == (
        "These 4 jobs would stand #1–#4 in line (ComfyUI gets 3 at a time); "
        "the wait is estimated once a job has finished."
    )
    finish_one(ledger, preset_name, seconds=8.0)
    others = (ServerStatus("http://127.0.0.1:8188", queue=5),)  # other clients' prompts
    controller.push(servers=others, server_queue=5, in_flight=0)
    assert composer.notice.text() == (
        "These 4 jobs would stand #6–#9 in line (ComfyUI gets 3 at a time); "
        "the last would be done in about 1 min 12 s."
    )
    controller.push(servers=(ServerStatus("http://127.0.0.1:8188"),), server_queue=0)
    composer.seeds.count.setValue(1)
    assert composer.notice.isHidden()


def test_a_higher_priority_stands_ahead_of_the_jobs_waiting(
    composer, controller, ledger, preset_name
) -> None:
    ledger.create_batch(
        preset_name, [NewJob(params={"3.seed": n}) for n in range(5)], requester="b"
    )
    controller.push(server_queue=0, in_flight=0)
    composer.requester.setText("b")  # another requester's would take turns with b's
    composer.requester.editingFinished.emit()
    composer.seeds.count.setValue(4)
    assert composer.notice.text().startswith("These 4 jobs would stand #6–#9 in line")
    composer.priority.setValue(1)
    assert composer.notice.text().startswith("These 4 jobs would stand #1–#4 in line")
    composer.priority.setValue(-1)
    assert composer.notice.text().startswith("These 4 jobs would stand #6–#9 in line")


def test_a_new_job_takes_turns_with_another_requesters_waiting_ones(
    composer, controller, ledger, preset_name
) -> None:
    ledger.create_batch(
        preset_name, [NewJob(params={"3.seed": n}) for n in range(5)], requester="b"
    )
    composer.requester.setText("a")
    composer.requester.editingFinished.emit()
    composer.seeds.count.setValue(3)
    # a's turn first (name order), then b's: a, b, a, b, a
    assert composer.notice.text().startswith("These 3 jobs would stand #1–#5 in line")


def test_the_wait_counts_every_server(composer, controller) -> None:
    servers = (ServerStatus("http://gpu-1:8188"), ServerStatus("http://gpu-2:8188"))
    controller.push(servers=servers, server_queue=0)
    composer.seeds.count.setValue(6)
    assert composer.notice.isHidden(), "6 fit: 3 on each server"
    composer.seeds.count.setValue(7)
    assert composer.notice.text().startswith(
        "These 7 jobs would stand #1–#7 in line (your 2 servers get 6 at a time)"
    )


def test_a_batch_past_the_quota_is_said_while_composing_not_only_on_queue(
    composer, controller, ledger, preset_name
) -> None:
    from core.ledger.settings import MAX_PENDING_PER_REQUESTER

    MAX_PENDING_PER_REQUESTER.set(ledger, 5)
    _batch, ann_jobs = ledger.create_batch(preset_name, [NewJob({})] * 3, requester="ann")
    composer.requester.setText("ann")
    composer.requester.editingFinished.emit()
    composer.seeds.count.setValue(2)
    assert "would be refused" not in composer.notice.text(), "3 + 2 fit under 5"
    composer.seeds.count.setValue(3)
    assert composer.notice.text() == (
        "Not now: ann has 3 unfinished jobs and may have 5, so these 3 jobs would be refused; "
        "there is room once some have finished."
    )
    ledger.request_cancel(ann_jobs[0])  # one of ann's jobs ends: 2 + 3 fit
    controller.push(server_queue=0)
    assert "would be refused" not in composer.notice.text()
    composer.requester.setText("bob")  # another requester has a quota of its own
    composer.requester.editingFinished.emit()
    assert "would be refused" not in composer.notice.text()
    composer.seeds.count.setValue(6)
    assert composer.notice.text() == (
        "Too many at once: a batch of 6 jobs is more than the 5 one requester may have "
        "unfinished: split it."
    )


def test_a_batch_that_stops_fitting_while_composed_is_said_with_the_next_status(
    composer, controller, ledger, preset_name
) -> None:
    """Jobs queued meanwhile from elsewhere (the command line, the API) fill the quota."""
    from core.ledger.settings import MAX_PENDING_PER_REQUESTER

    MAX_PENDING_PER_REQUESTER.set(ledger, 5)
    composer.requester.setText("ann")
    composer.requester.editingFinished.emit()
    composer.seeds.count.setValue(3)
    assert "would be refused" not in composer.notice.text()
    ledger.create_batch(preset_name, [NewJob({})] * 3, requester="ann")
    controller.push(server_queue=0)
    assert composer.notice.text().startswith("Not now: ann has 3 unfinished jobs and may have 5")


def test_queued_says_one_job_and_waiting_for_the_server(composer, controller) -> None:
    from core.controller.status import Connection

    told: list[str] = []
    composer.message.connect(told.append)
    controller.push(connection=Connection.connected, stopped="")
    composer.seeds.count.setValue(1)
    composer.queue_button.click()
    assert told[-1] == f"Queued 1 job as “{composer.preset_name} · seed 0”.", "by its title"
    controller.push(connection=Connection.offline, stopped="")
    composer.queue_button.click()
    assert told[-1].endswith("; it waits for the server (ComfyUI does not answer).")


def finish_one(ledger, preset_name, seconds: float) -> None:
    """A job of another batch that ran `seconds` on the server."""
    _batch, (job_id,) = ledger.create_batch(preset_name, [NewJob(params={})], requester="x")
    ledger.submit_attempt(job_id, "p-done", "http://x", "wf")
    ledger.observe_queued("p-done", 1)
    ledger.observe_running("p-done")
    assert succeed(ledger, "p-done", [], "", (1000.0, 1000.0 + seconds))


def test_what_the_servers_lack_is_said_per_server() -> None:
    from core.presets import InputRef, Parameter
    from core.presets.availability import ChoiceKind, Unlisted
    from desktop.composer.composer_notice import missing_notice, unlisted_tooltip

    ckpt = Parameter(
        InputRef("4", "ckpt_name"), "Load Checkpoint", "CheckpointLoaderSimple", "COMBO", "x"
    )
    image = Parameter(InputRef("10", "image"), "Load Image", "LoadImage", "COMBO", "fox.png")
    a, b, c = "http://gpu-a:8188", "http://gpu-b:8188", "http://gpu-c:8188"
    model = Unlisted(ckpt, "sdxl.safetensors", ChoiceKind.model, (a,), (b, c))
    fox = Unlisted(image, "fox.png", ChoiceKind.picture, (a, b))
    assert missing_notice([model, fox], {b: ["UltimateSDUpscale"]}, [a, b, c]) == (
        "On gpu-a:8188: model “sdxl.safetensors” (Load Checkpoint · ckpt_name) is missing "
        "(gpu-b:8188 and gpu-c:8188 have it); picture “fox.png” (Load Image · image) is "
        "missing.\n"
        "On gpu-b:8188: node “UltimateSDUpscale” is missing; picture “fox.png” (Load Image · "
        "image) is missing.\n"
        "gpu-c:8188 has everything."
    )
    assert missing_notice([], {}, [a, b]) == ""
    assert unlisted_tooltip(model) == (
        "Load Checkpoint · ckpt_name: gpu-a:8188 does not have “sdxl.safetensors”; gpu-b:8188 "
        "and gpu-c:8188 have it. Choose another at the top of the composer."
    )
