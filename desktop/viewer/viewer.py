"""The picture viewer: one batch's pictures, one at a time, with the picture's values beside it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from PySide6.QtCore import QEvent, Qt, QUrl, Signal, Slot
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDesktopServices,
    QGuiApplication,
    QImage,
    QKeySequence,
)
from PySide6.QtWidgets import QHBoxLayout, QWidget

from core.batch.varied import value_text
from core.errors import BatchlineError
from core.ledger.marks import Mark
from core.pictures.picture_facts import PictureFacts, batch_values, picture_facts
from core.pictures.sheet_order import sheet_pictures
from core.pictures.trash import check_trashable, trash_picture
from desktop.common.questions import confirm
from desktop.jobs.job_action_scope import plain_text
from desktop.jobs.queue_again import MORE_LIKE_THIS, queue_again, queue_more_like
from desktop.viewer.compare_view import CompareView, ledger_captions
from desktop.viewer.picture_loader import PictureLoader
from desktop.viewer.viewer_canvas import ZOOM_STEP, PictureCanvas
from desktop.viewer.viewer_panel import ViewerPanel
from desktop.window.toast import Toast

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from PySide6.QtCore import QPointF

    from core.batch.varied import BatchValues
    from core.ledger import Ledger
    from core.pictures.pictures import Picture
    from desktop.common.controller_port import ControllerPort

PREFERRED_SIZE = (1200, 800)


class ViewerKey(NamedTuple):
    """One of the viewer's actions: its name, its text, its keys and its tooltip."""

    name: str
    text: str
    keys: tuple[str, ...] = ()
    tip: str = ""


# The viewer's actions and their keys: bound from here (`PictureViewer._actions`) and listed
# from here by Help › Keyboard shortcuts, so the two cannot drift apart.
VIEWER_KEYS = (
    ViewerKey("previous", "◀ Previous", ("Left",)),
    ViewerKey("next", "Next ▶", ("Right",)),
    ViewerKey("first", "First", ("Home",)),
    ViewerKey("last", "Last", ("End",)),
    ViewerKey("fit", "&Fit", ("F",), "Show the whole picture"),
    ViewerKey("actual", "100 %", ("A",), "One pixel per pixel"),
    ViewerKey("zoom_in", "Zoom in", ("+", "=")),
    ViewerKey("zoom_out", "Zoom out", ("-",)),
    ViewerKey("star", "★ Star", ("1",)),
    ViewerKey("reject", "✕ Reject", ("0",)),
    ViewerKey("copy_seed", "&Copy seed", ("Ctrl+C",)),
    ViewerKey(
        "again",
        "&Queue again with this seed",
        ("Ctrl+Return",),
        "Queue one job with exactly this picture's values and seed",
    ),
    ViewerKey(
        "more",
        "More &like this",
        ("Ctrl+L",),
        "Queue 4 jobs with this picture's values and new seeds",
    ),
    ViewerKey(
        "pin",
        "&Pin to compare",
        ("P",),
        "Keep this picture on the left and step through the others beside it, in step",
    ),
    ViewerKey(
        "composer", "Send to co&mposer", (), "Put this picture's exact values in the composer"
    ),
    ViewerKey("open", "&Open file", (), "Open in the system's viewer"),
    ViewerKey("folder", "Show in fol&der", (), "Open the batch's folder"),
    ViewerKey("trash", "Move to &trash", ("Delete",)),
    ViewerKey("close", "Close", ("Escape",)),
)
VIEWER_MOUSE = (  # listed with the keys: the canvas's own
    ("Wheel", "Zoom around the cursor"),
    ("Drag", "Pan the picture"),
)
PANEL_ROWS = (  # the panel's buttons, a row of one or two each
    ("previous", "next"),
    ("fit", "actual"),
    ("star", "reject"),
    ("copy_seed",),
    ("again",),
    ("more", "pin"),
    ("composer",),
    ("open", "folder"),
    ("trash",),
)
_SCREEN_MARGIN = 24  # the window manager's title bar and a little room


class PictureViewer(QWidget):
    """A window over one batch's pictures in the contact sheet's order
    (`core.pictures.sheet_order`: seeds, a grid page by page and row by row; a job's several
    pictures one after another): Left/Right, Home/End step through them, the canvas fits
    (F), shows 100 % (A), zooms (wheel, +/-) around the cursor and pans by dragging, Escape
    closes. The side panel shows the picture's values and acts on it.

    Signals:
        recall_requested(str, bool): put this job's values (True: its seed alone) in the composer.
        queued(str, int): "Queue again with this seed" made this batch of that many jobs.
        changed(str): this job's mark changed, or one of its pictures went to the trash.
    """

    recall_requested = Signal(str, bool)
    queued = Signal(str, int)
    changed = Signal(str)

    def __init__(
        self,
        ledger: Ledger,
        controller: ControllerPort,
        output_dir: Path | None = None,
        parent: Any = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowFlag(Qt.WindowType.Window)
        self.ledger = ledger
        self.controller = controller
        self.output_dir = output_dir
        self.setWindowTitle("Batchline — Picture")
        self.pictures: list[Picture] = []
        self.index = -1
        self.batch_id: str | None = None
        self.facts: PictureFacts | None = None
        self._values: BatchValues | None = None
        self._values_of: dict[str, BatchValues] = {}  # the library's: per batch
        self.compare: CompareView | None = None  # pinned: "Pin to compare"
        self.loader = PictureLoader(self)
        self.loader.loaded.connect(self._on_loaded)
        self.loader.failed.connect(self._on_failed)
        self.canvas = PictureCanvas(self)
        self.canvas.scale_changed.connect(lambda _scale: self._title())
        self.actions_by_name: dict[str, QAction] = {}
        self.panel = ViewerPanel(self._actions(), self)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.canvas, 1)
        layout.addWidget(self.panel)
        self.toast = Toast(self.canvas)
        self.resize(*PREFERRED_SIZE)

    def _actions(self) -> list[list[QAction]]:
        """The actions of `VIEWER_KEYS`, each with its keys in the whole window; those of
        `PANEL_ROWS` in the panel's rows of buttons."""
        zoom_in = lambda: self.canvas.zoom_by(ZOOM_STEP, self._cursor())  # noqa: E731
        zoom_out = lambda: self.canvas.zoom_by(1 / ZOOM_STEP, self._cursor())  # noqa: E731
        slots: dict[str, Callable[[], object]] = {
            "previous": self.previous,
            "next": self.next,
            "fit": self.canvas.fit,
            "actual": self.canvas.actual_size,
            "star": lambda: self.toggle_mark(Mark.star),
            "reject": lambda: self.toggle_mark(Mark.reject),
            "copy_seed": self.copy_seed,
            "again": self.queue_again,
            "more": self.more_like_this,
            "pin": self.pin,
            "composer": lambda: self._recall(seed_only=False),
            "open": self.open_file,
            "folder": self.show_folder,
            "trash": self.move_to_trash,
            "first": self.first,
            "last": self.last,
            "zoom_in": zoom_in,
            "zoom_out": zoom_out,
            "close": self.close,
        }
        for key in VIEWER_KEYS:
            action = QAction(key.text, self)
            action.setObjectName(key.name)
            action.setShortcuts([QKeySequence(keys) for keys in key.keys])
            shown = ", ".join(key.keys)
            tip = key.tip or plain_text(key.text)
            action.setToolTip(f"{tip} ({shown})" if key.keys else tip)
            action.triggered.connect(lambda _checked=False, slot=slots[key.name]: slot())
            self.addAction(action)
            self.actions_by_name[key.name] = action
        return [[self.actions_by_name[name] for name in row] for row in PANEL_ROWS]

    def fit_to_screen(self) -> None:
        """The preferred size, or the screen's room less a margin, centred on that screen."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        room = screen.availableGeometry() if screen is not None else None
        if room is None or not room.isValid():
            return
        width = min(PREFERRED_SIZE[0], room.width() - 2 * _SCREEN_MARGIN)
        height = min(PREFERRED_SIZE[1], room.height() - 2 * _SCREEN_MARGIN)
        self.resize(max(width, self.minimumSizeHint().width()), height)
        frame = self.frameGeometry()
        frame.moveCenter(room.center())
        self.move(max(frame.left(), room.left()), max(frame.top(), room.top()))

    def _cursor(self) -> QPointF | None:
        """The cursor on the canvas when it is over it (zoom keeps that point), else None."""
        point = self.canvas.mapFromGlobal(self.cursor().pos()).toPointF()
        return point if self.canvas.rect().contains(point.toPoint()) else None

    # --- what is shown --------------------------------------------------------------------------

    def open_job(self, job_id: str) -> bool:
        """Show the job's first picture among its batch's; False when it has none."""
        batch_id = self.ledger.job(job_id).batch
        pictures = sheet_pictures(self.ledger, batch_id, self.output_dir)
        index = next((i for i, p in enumerate(pictures) if p.job_id == job_id), None)
        if index is None:
            return False
        self.batch_id = batch_id
        self._values = batch_values(self.ledger, batch_id)
        self.pictures = pictures
        self.show_index(index)
        return True

    def open_pictures(self, pictures: list[Picture], index: int) -> bool:
        """Show ``pictures`` (the library's, of many batches) from the ``index``-th; False when
        there are none."""
        if not pictures:
            return False
        self.batch_id = None  # not one batch's: nothing to read again at the end
        self._values = None
        self._values_of.clear()
        self.pictures = list(pictures)
        self.show_index(index)
        return True

    def _batch_values(self, picture: Picture) -> BatchValues:
        """The values of the picture's batch (the one batch's, or read per batch)."""
        if self.batch_id is not None and self._values is not None:
            return self._values
        batch_id = self.ledger.job(picture.job_id).batch
        if batch_id not in self._values_of:
            self._values_of[batch_id] = batch_values(self.ledger, batch_id)
        return self._values_of[batch_id]

    def current(self) -> Picture | None:
        return self.pictures[self.index] if 0 <= self.index < len(self.pictures) else None

    def show_index(self, index: int) -> None:
        if not self.pictures:
            self.index = -1
            self.facts = None
            self.canvas.set_image(None, "No pictures left in this batch.")
            self.panel.show_facts(None, None, "")
            self._enable()
            return
        self.index = min(max(index, 0), len(self.pictures) - 1)
        picture = self.pictures[self.index]
        path = str(picture.path)
        self._title()
        self.facts = picture_facts(self.ledger, picture.job_id, self._batch_values(picture))
        image = self.loader.cached(path)
        if image is not None:
            self.canvas.set_image(image)
        else:
            self.canvas.set_image(None, "Loading…")
            self.loader.request(path)
        self._show_facts()
        self._enable()
        for neighbour in (self.index + 1, self.index - 1):
            if 0 <= neighbour < len(self.pictures):
                self.loader.request(str(self.pictures[neighbour].path))

    def _title(self) -> None:
        """The picture's file name and the scale it is shown at."""
        picture = self.current()
        if picture is not None:
            zoom = f" — {self.canvas.zoom():.0%}" if self.canvas.has_picture() else ""
            self.setWindowTitle(f"{picture.path.name}{zoom} — Batchline")

    def _show_facts(self) -> None:
        batch = (self.facts.batch_name if self.facts else None) or self.batch_id
        where = f"{self.index + 1} of {len(self.pictures)} · {batch}"
        self.panel.show_facts(self.facts, self.canvas.picture_size(), where)

    def _enable(self) -> None:
        shown = self.current() is not None
        for name, action in self.actions_by_name.items():
            if name != "close":
                action.setEnabled(shown)
        self.actions_by_name["previous"].setEnabled(self.index > 0)
        seeded = bool(self.facts and self.facts.seeds)
        self.actions_by_name["copy_seed"].setEnabled(seeded)
        again = "&Queue again with this seed" if seeded else "&Queue again"  # the same values
        self.actions_by_name["again"].setText(again)
        mark = self.facts.mark if self.facts else None
        for name, value in (("star", Mark.star), ("reject", Mark.reject)):
            self.actions_by_name[name].setCheckable(True)
            self.actions_by_name[name].setChecked(mark is value)

    def _reload(self) -> None:
        """Read the batch's pictures again (jobs finished since), keeping the one shown."""
        shown = self.current()
        if self.batch_id is None or shown is None:
            return
        self.pictures = sheet_pictures(self.ledger, self.batch_id, self.output_dir)
        self.index = next((i for i, p in enumerate(self.pictures) if p == shown), self.index)

    @Slot()
    def next(self) -> None:
        if self.index >= len(self.pictures) - 1:
            self._reload()  # at the end: the batch may have finished more since
        self.show_index(self.index + 1)

    @Slot()
    def previous(self) -> None:
        self.show_index(max(self.index - 1, 0))

    @Slot()
    def first(self) -> None:
        self.show_index(0)

    @Slot()
    def last(self) -> None:
        self._reload()
        self.show_index(len(self.pictures) - 1)

    @Slot(str, QImage)
    def _on_loaded(self, path: str, image: QImage) -> None:
        picture = self.current()
        if picture is not None and str(picture.path) == path:
            self.canvas.set_image(image)
            self._show_facts()

    @Slot(str, str)
    def _on_failed(self, path: str, why: str) -> None:
        picture = self.current()
        if picture is not None and str(picture.path) == path:
            self.canvas.set_image(None, why)

    # --- acting on the picture ------------------------------------------------------------------

    @Slot()
    def copy_seed(self) -> None:
        if self.facts is None or not self.facts.seeds:
            return
        seeds = list(dict.fromkeys(value_text(v) for v in self.facts.seeds.values()))
        QGuiApplication.clipboard().setText(", ".join(seeds))
        self.toast.show_message(f"Copied seed {', '.join(seeds)}.")

    @Slot()
    def queue_again(self) -> None:
        picture = self.current()
        if picture is None:
            return
        text, batch_id = queue_again(self.controller, picture.job_id)
        self.toast.show_message(text, error=batch_id is None)
        if batch_id is not None:
            self.queued.emit(batch_id, 1)

    @Slot()
    def more_like_this(self) -> None:
        """Queue a few jobs with this picture's values and new seeds."""
        picture = self.current()
        if picture is None:
            return
        text, batch_id = queue_more_like(self.controller, self.ledger, picture.job_id)
        self.toast.show_message(text, error=batch_id is None)
        if batch_id is not None:
            self.queued.emit(batch_id, MORE_LIKE_THIS)

    @Slot()
    def pin(self) -> CompareView | None:
        """Pin this picture: a compare window shows it beside the others, stepping from the
        next one."""
        picture = self.current()
        if picture is None:
            return None
        if self.compare is not None:
            self.compare.close()
            self.compare.deleteLater()
        following = min(self.index + 1, len(self.pictures) - 1)
        self.compare = CompareView(
            picture, self.pictures, following, self, ledger_captions(self.ledger)
        )
        self.compare.show()
        return self.compare

    def _recall(self, *, seed_only: bool) -> None:
        picture = self.current()
        if picture is not None:
            self.recall_requested.emit(picture.job_id, seed_only)

    @Slot()
    def open_file(self) -> None:
        picture = self.current()
        if picture is not None:
            self._open(picture.path)

    @Slot()
    def show_folder(self) -> None:
        """Open the batch's folder: the download puts each batch's pictures in a folder of its
        own (``<output folder>/<batch>/``), so it is the picture's."""
        picture = self.current()
        if picture is not None:
            self._open(picture.path.parent)

    def _open(self, path: Path) -> None:
        """Hand ``path`` to the desktop's application for it; why not, when it cannot be."""
        if not path.exists():
            self.toast.show_message(f"{path} is no longer there", error=True)
        elif not QDesktopServices.openUrl(QUrl.fromLocalFile(str(path))):
            self.toast.show_message(f"No application here opens {path}", error=True)

    def toggle_mark(self, mark: Mark) -> None:
        """Mark the job ``mark``, or take the mark off when it has it already."""
        if self.facts is None:
            return
        new = None if self.facts.mark is mark else mark
        try:
            self.controller.mark([self.facts.job_id], new)
        except BatchlineError as exc:
            self.toast.show_message(str(exc), error=True)
            return
        shown = self.current()
        if shown is not None:
            self.facts = picture_facts(self.ledger, self.facts.job_id, self._batch_values(shown))
        self.panel.show_mark(self.facts.mark)
        self._enable()
        self.changed.emit(self.facts.job_id)

    @Slot()
    def move_to_trash(self) -> None:
        """Ask, then move the picture to the system trash and show the next one; a starred
        picture is refused (its star has to come off first)."""
        picture = self.current()
        if picture is None:
            return
        try:
            check_trashable(self.ledger, picture.job_id, picture.path)
        except BatchlineError as exc:
            self.toast.show_message(str(exc), error=True)
            return
        question = f"Move {picture.path.name} to the trash?\nIts job stays in the history."
        if not confirm(self, "Move to trash", question):
            return
        try:
            trash_picture(self.ledger, picture.job_id, picture.path)
        except BatchlineError as exc:
            self.toast.show_message(str(exc), error=True)
            return
        self.loader.forget(str(picture.path))
        del self.pictures[self.index]
        self.show_index(self.index)
        self.toast.show_message(f"Moved {picture.path.name} to the trash.")
        self.changed.emit(picture.job_id)

    def changeEvent(self, event: QEvent) -> None:
        """Coming back to the viewer, its facts are read again: a mark set in the contact
        sheet or the table meanwhile shows."""
        super().changeEvent(event)
        activated = event.type() == QEvent.Type.ActivationChange and self.isActiveWindow()
        shown = self.current() if activated and self.facts is not None else None
        if shown is not None and self.facts is not None:
            self.facts = picture_facts(self.ledger, self.facts.job_id, self._batch_values(shown))
            self._show_facts()
            self._enable()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.toast.dismiss()
        super().closeEvent(event)

    def shutdown(self) -> None:
        self.loader.shutdown()
