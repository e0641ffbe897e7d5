"""Export from the app: which papers (the starred ones, or what the list shows), the format
(BibTeX, RIS, CSL-JSON) and the file. Papers come from the store, never from what happens to be
loaded; the file is written atomically in a worker."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Input, Label, RadioButton, RadioSet, Static

from reader.app.keys import key
from reader.app.memory import give_back_freed
from reader.app.screens.dialogs import ConfirmDialog, FormDialog
from reader.app.widgets.footer import KeyFooter
from reader.core.exporting import FORMATS, SUFFIXES
from reader.core.ownership import Holdings
from reader.core.text import plural
from reader.errors import ReaderError
from reader.safe_files import path_problem
from reader.service import LibraryService

LARGE_EXPORT = 1_000  # papers: reading their records takes seconds, so the export says it started
FORMAT_OF_SUFFIX = {suffix: format for format, suffix in SUFFIXES.items()}
FORMAT_LABELS = {"bibtex": "BibTeX (.bib)", "ris": "RIS (.ris): Zotero, EndNote, Mendeley", "csl-json": "CSL-JSON (.json): Zotero, Pandoc"}


@dataclass(frozen=True, slots=True)
class ExportChoice:
    ids: list[str]  # in the order they are written
    what: str  # "starred papers", "papers of <view>"
    format: str
    path: str
    onto: str = ""  # a file holding the user's entries: "update" it or "replace" it ("": ask)


class ExportDialog(FormDialog[ExportChoice | None]):
    """Pick the papers, the format and the file. A problem with the path is shown beside it, and
    what was typed stays. The path and the format follow each other: a format chosen changes the
    path's extension, a path typed with a format's extension (ignoring case) chooses it."""

    SUBMIT_LABEL = "Export"
    # Under 60 columns the dialog takes the whole width and its buttons their labels' (styles):
    # at 40x15 both buttons show, and the dialog scrolls to them.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (60, "-wide")]

    def __init__(self, selections: list[tuple[str, list[str]]], format: str, path: str):
        super().__init__()
        self.choices = [(what, ids) for what, ids in selections if ids]
        self.format = format_of(path) or (format if format in FORMATS else "bibtex")
        self.default_path = path

    def form(self) -> ComposeResult:
        yield Label("Export", classes="dialog-title")
        with RadioSet(id="export-what"):
            for i, (what, _ids) in enumerate(self.choices):
                yield RadioButton(Text(what), value=i == 0)  # a view's name is the user's text
        with RadioSet(id="export-format"):
            for name in FORMATS:
                yield RadioButton(FORMAT_LABELS[name], value=name == self.format)
        yield Input(value=self.default_path, id="path")

    def on_mount(self) -> None:
        # Enter exports at once; Shift+Tab reaches the format and the choice of papers.
        self.query_one("#path", Input).focus()

    def _chosen_format(self) -> str:
        return FORMATS[max(self.query_one("#export-format", RadioSet).pressed_index, 0)]

    @on(RadioSet.Changed, "#export-format")
    def _format_changed(self) -> None:
        """A path ending in another format's suffix follows the format (starred.bib -> starred.ris)."""
        box, chosen = self.query_one("#path", Input), self._chosen_format()
        if format_of(box.value) not in (None, chosen):  # refs.RIS typed, RIS chosen by it: kept as typed
            box.value = str(Path(box.value).with_suffix(SUFFIXES[chosen]))

    @on(Input.Changed, "#path")
    def _path_changed(self, event: Input.Changed) -> None:
        wanted = format_of(event.value)
        if wanted is not None and wanted != self._chosen_format():
            self.query_one("#export-format", RadioSet).query(RadioButton)[FORMATS.index(wanted)].value = True

    def submit(self) -> None:
        path = self.query_one("#path", Input).value.strip()
        problem = path_problem(path)
        if problem:
            self.say(problem)
            return
        what, ids = self.choices[max(self.query_one("#export-what", RadioSet).pressed_index, 0)]
        self.dismiss(ExportChoice(ids, what, self._chosen_format(), path))


class ExistingFileDialog(ModalScreen[str | None]):
    """The file chosen holds entries reader did not write (or ones changed since): say so, and
    offer to add to it keeping every entry (BibTeX; the default), to replace it, or to cancel."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    HORIZONTAL_BREAKPOINTS = ExportDialog.HORIZONTAL_BREAKPOINTS  # three buttons fit in 40 columns

    def __init__(self, name: str, held: Holdings, format: str):
        super().__init__()
        self.file_name, self.held, self.can_update = name, held, format == "bibtex"

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(f"{self.file_name} exists", classes="dialog-title", markup=False)
            yield Static(self.held.summary(self.file_name), markup=False)
            keep = "Update adds the papers it lacks and keeps every entry; " if self.can_update else ""
            yield Static(f"{keep}Replace writes it anew, dropping the entries not from reader.", classes="dialog-hint")
            with Horizontal(classes="dialog-buttons"):
                if self.can_update:
                    yield Button("Update", variant="primary", id="update")
                yield Button("Replace", variant="error", id="replace")
                yield Button("Cancel", id="cancel")
        yield KeyFooter()

    def on_mount(self) -> None:
        # Enter keeps the user's entries: Update, or Cancel where the format has no update.
        self.query_one("#update" if self.can_update else "#cancel", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None if event.button.id == "cancel" else event.button.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


def format_of(path: str) -> str | None:
    """The format a path's extension names (`refs.RIS`: ris), if any."""
    return FORMAT_OF_SUFFIX.get(Path(path.strip()).suffix.lower())


class ExportEnded(Message):
    """The export worker's outcome: `done` what was written, else `failed` why, else `held` the
    user's entries the file holds (the user is asked how to go on)."""

    def __init__(self, choice: ExportChoice, *, done: str = "", failed: str = "", held: Holdings | None = None):
        super().__init__()
        self.choice = choice
        self.done = done
        self.failed = failed
        self.held = held


class ExportActions(Screen):
    """The export key of a screen that lists papers (`e`)."""

    service: LibraryService
    _export_draft: tuple[str, str] | None = None  # (format, path) of an export that failed: offered again

    def export_selections(self) -> list[tuple[str, list[str]]]:
        """(label, ids) choices the dialog offers, the default first; the screen says what it shows."""
        raise NotImplementedError

    def action_export(self) -> None:
        if self.service.is_demo:
            self.app.notify(
                f"The demo papers have no arXiv ids, so there is nothing to export. Sync your topics ({key(self.app, 'app.sync')}) and star real papers.",
                severity="warning",
                timeout=10,
            )
            return
        selections = [(label, ids) for label, ids in self.export_selections() if ids]
        if not selections:
            self.app.notify(
                f"Nothing to export: star papers with {key(self.app, 'app.star')}, or pick a view with papers.", severity="warning"
            )
            return
        format = self.service.setting("export_format") or "bibtex"
        # export_path from a flag, the environment or config.toml, else the path used last
        configured = self.service.settings.export_path
        default = str(configured) if configured else self.service.setting("export_path")
        default = default or str(Path.home() / f"starred{SUFFIXES.get(format, '.bib')}")
        format, default = self._export_draft or (format, default)

        def chosen(choice: ExportChoice | None) -> None:
            if choice is not None:
                self._export(choice)

        self.app.push_screen(ExportDialog(selections, format, default), chosen)

    @work(thread=True, group="export")
    def _export(self, choice: ExportChoice) -> None:
        try:
            self._write_export(choice)
        finally:
            if len(choice.ids) >= LARGE_EXPORT:
                give_back_freed()  # the records read, and the text made of them

    def _write_export(self, choice: ExportChoice) -> None:
        target = Path(choice.path).expanduser()
        if len(choice.ids) >= LARGE_EXPORT:
            self.app.notify(f"Exporting {choice.what} to {target}…")  # thread-safe
        try:
            papers = self.service.papers(choice.ids)
            if choice.onto == "update":
                result = self.service.exports.update_export(target, papers)
                done = (
                    f"{target}: added {plural(len(result.added), 'entry', 'entries', thousands=True)}, "
                    f"{len(result.kept):,} already there; every entry of the file kept"
                )
            else:
                text = self.service.export_text(choice.format, papers)
                held = None if choice.onto == "replace" else self.service.exports.users_entries(choice.format, target, text)
                if held is not None:
                    self.post_message(ExportEnded(choice, held=held))
                    return
                self.service.exports.write_export(choice.format, target, text)
                done = f"Wrote {choice.what} to {target} as {FORMAT_LABELS[choice.format].split(' ')[0]}"
        except ReaderError as error:
            self.post_message(ExportEnded(choice, failed=f"Export failed: {error}"))
            return
        self.service.set_setting("export_path", str(target))
        self.service.set_setting("export_format", choice.format)
        self.post_message(ExportEnded(choice, done=done))

    def on_export_ended(self, message: ExportEnded) -> None:
        if message.held is not None:
            self._ask_how(message.choice, message.held)
        elif message.failed:
            self._export_failed(message.choice, message.failed)
        else:
            self._exported(message.done)

    def _ask_how(self, choice: ExportChoice, held: Holdings) -> None:
        """Update or replace a file that holds the user's entries; Replace asks once more."""
        name = Path(choice.path).name

        def confirmed(yes: bool | None) -> None:
            if yes:
                self._export(replace(choice, onto="replace"))

        def answered(how: str | None) -> None:
            if how == "update":
                self._export(replace(choice, onto="update"))
            elif how == "replace":
                lost = plural(held.foreign, "entry", "entries", thousands=True)
                self.app.push_screen(ConfirmDialog(f"Replace {name}? Its {lost} not from reader will be lost.", yes="Replace"), confirmed)

        self.app.push_screen(ExistingFileDialog(name, held, choice.format), answered)

    def _exported(self, done: str) -> None:
        self._export_draft = None
        self.app.notify(done)

    def _export_failed(self, choice: ExportChoice, message: str) -> None:
        self._export_draft = (choice.format, choice.path)  # the next e offers what was typed
        self.app.notify(f"{message} ({key(self.app, 'app.export')} offers this path again)", severity="error", timeout=15)
