"""Small modal dialogs: add a topic, confirm, a line of text, add a paper, and the form the dialogs that ask
for something share (FormDialog). Each has its own footer; Tab and Shift+Tab move between its
fields and buttons."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static
from textual.worker import Worker, WorkerState

from reader.app.widgets.footer import KeyFooter
from reader.core.names import NameTaken, checked_name
from reader.core.query import parse
from reader.errors import QueryError, ReaderError
from reader.ids import parse_paper_id

ResultType = TypeVar("ResultType")

ADD_TEXTS = {
    "topic": ("Add a topic", "Name, e.g. RL for LLM Agents", 'arXiv query, e.g. abs:"reinforcement learning" AND cat:cs.LG'),
    "watch": (
        "Add a watch: names and words to spot in the cache",
        "Name, e.g. Levine",
        'arXiv query, e.g. au:levine OR abs:"process reward"',
    ),
}


class FormDialog(ModalScreen[ResultType]):
    """A dialog that asks for something: its fields (`form`), a line saying what is wrong with
    them, and a button that sends them beside Cancel. Enter in a field moves to the next one and
    in the last sends them too; typing clears the line; Esc cancels (the result is None)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    SUBMIT_LABEL = "Save"

    def form(self) -> ComposeResult:
        """The title and the fields."""
        raise NotImplementedError

    def submit(self) -> None:
        """Check the fields: `say` what is wrong with them, or dismiss with the result."""
        raise NotImplementedError

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield from self.form()
            yield Static("", classes="dialog-error", markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button(self.SUBMIT_LABEL, variant="primary", id="submit")
                yield Button("Cancel", id="cancel")
        yield KeyFooter()

    def say(self, problem: str) -> None:
        if self.is_attached:  # a write's failure may come after the dialog closed
            self.query_one(".dialog-error", Static).update(problem)

    def on_input_changed(self) -> None:
        self.say("")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        fields = list(self.query(Input))
        if event.input is fields[-1]:
            self.submit()
        else:
            fields[fields.index(event.input) + 1].focus()

    @on(Button.Pressed, "#submit")
    def _submit_pressed(self) -> None:
        self.submit()

    @on(Button.Pressed, "#cancel")
    def _cancel_pressed(self) -> None:
        self.action_cancel()

    def action_cancel(self) -> None:
        self.dismiss(None)


class AddTopicDialog(FormDialog[ResultType]):
    """Name and arXiv query of a topic (or a watch: `kind`). It closes only once `save` (the
    store's add, run in a worker) has kept them, with what it returned; every refusal, found
    here or by the write (a name another process took meanwhile, a disk that cannot be written),
    is said on the dialog's line, both fields kept as typed and the one at fault focused."""

    SUBMIT_LABEL = "Add"

    def __init__(self, save: Callable[[str, str], ResultType], kind: str = "topic"):
        super().__init__()
        self.save = save
        self.kind = kind
        self._saving = False

    def form(self) -> ComposeResult:
        title, name_hint, query_hint = ADD_TEXTS[self.kind]
        yield Label(title, classes="dialog-title")
        yield Input(placeholder=name_hint, id="topic-name")
        yield Input(placeholder=query_hint, id="topic-query")

    def _problem(self, name: str, query: str) -> tuple[str, str] | None:
        """What is wrong with the fields, and the id of the field at fault."""
        try:
            checked_name(name, self.kind)  # never cut: a name over the limit is refused
        except ReaderError as error:
            return sentence(str(error)), "#topic-name"
        if not query:
            return f"The {self.kind} needs a query.", "#topic-query"
        try:
            parse(query)
        except QueryError as error:
            return f"Invalid query: {error.describe()}", "#topic-query"
        return None

    def submit(self) -> None:
        if self._saving:
            return
        name, query = self.query_one("#topic-name", Input).value, self.query_one("#topic-query", Input).value.strip()
        found = self._problem(name, query)
        if found:
            self._refused(*found)
            return
        self._saving = True
        self._save(name, query)

    class Saved(Message):
        """The save worker's outcome: `saved` the dialog's result, else `problem` (and the field to fix)."""

        def __init__(self, saved: Any = None, problem: str = "", field: str | None = None):
            super().__init__()
            self.saved = saved
            self.problem = problem
            self.field = field

    @work(thread=True, exclusive=True, group="save")
    def _save(self, name: str, query: str) -> None:
        try:
            saved = self.save(name, query)
        except NameTaken as error:  # by another process since the dialog opened, maybe
            self.post_message(self.Saved(problem=sentence(str(error)), field="#topic-name"))
        except ReaderError as error:
            self.post_message(self.Saved(problem=f"Not saved: {error}"))
        else:
            self.post_message(self.Saved(saved))

    def on_add_topic_dialog_saved(self, message: Saved) -> None:
        if message.problem:
            self._refused(message.problem, message.field)
        else:
            self.dismiss(message.saved)

    def _refused(self, problem: str, field: str | None) -> None:
        self._saving = False
        self.say(problem)
        if field is not None:
            self.query_one(field, Input).focus()

    def action_cancel(self) -> None:
        if not self._saving:  # a save under way ends in a moment: its result is shown
            super().action_cancel()


def sentence(message: str) -> str:
    """A store's one-line error as the dialog's sentence: a capital first, a full stop last."""
    message = message[:1].upper() + message[1:]
    return message if message.endswith((".", ")")) else message + "."


class ConfirmDialog(ModalScreen[bool]):
    BINDINGS = [Binding("y", "answer(True)", "Yes"), Binding("escape,n", "answer(False)", "No")]

    def __init__(self, question: str, yes: str = "Yes"):
        super().__init__()
        self.question = question
        self.yes = yes

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.question, classes="dialog-title", markup=False)
            yield Static("y answers yes; n or Esc cancels.", classes="dialog-hint")
            with Horizontal(classes="dialog-buttons"):
                yield Button(self.yes, variant="error", id="yes")
                yield Button("Cancel", id="no")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()  # Enter on a destructive question means "no"

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)


class TextDialog(FormDialog[str | None]):
    """One line of text (e.g. a tag's new name); `check` says what is wrong with it, beside the field."""

    def __init__(self, title: str, value: str, check: Callable[[str], str | None]):
        super().__init__()
        self.title_text = title
        self.value = value
        self.check = check

    def form(self) -> ComposeResult:
        yield Static(self.title_text, classes="dialog-title", markup=False)
        yield Input(value=self.value, id="text")

    def submit(self) -> None:
        value = self.query_one("#text", Input).value.strip()
        problem = self.check(value)
        if problem:
            self.say(problem)
            return
        self.dismiss(value)


class AddPaperDialog(FormDialog[ResultType]):
    """An arXiv id or link pasted (any form reader/ids.py reads), the paper fetched by `fetch`
    (run in a worker; a ReaderError says what went wrong). It closes once the paper is in the
    cache, with what `fetch` returned; a refusal (not an id, no such paper, arXiv unreachable)
    is said on its line, the text kept. Esc while fetching closes it: a paper that arrives after
    is kept, as one another process added."""

    SUBMIT_LABEL = "Add"

    def __init__(self, fetch: Callable[[str, int | None], ResultType]):
        super().__init__()
        self.fetch = fetch
        self._fetching = False

    def form(self) -> ComposeResult:
        yield Label("Add a paper: fetched from arXiv and kept", classes="dialog-title")
        yield Input(placeholder="arXiv id or link, e.g. 2609.12345 or https://arxiv.org/abs/2609.12345v2", id="paper-ref")

    def submit(self) -> None:
        if self._fetching:
            return
        try:
            paper_id, version = parse_paper_id(self.query_one("#paper-ref", Input).value)
        except ReaderError as error:
            self.say(sentence(str(error)))
            return
        self._fetching = True
        self.say(f"Fetching arXiv:{paper_id}{f'v{version}' if version else ''}…")
        self._fetch(paper_id, version)

    @work(thread=True, exclusive=True, group="fetch")
    def _fetch(self, paper_id: str, version: int | None) -> tuple[ResultType | None, str | None]:
        """(what `fetch` returned, None) or (None, why not)."""
        try:
            return self.fetch(paper_id, version), None
        except ReaderError as error:
            return None, sentence(str(error))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The fetch's outcome, taken once its worker is done (the dialog closes after it)."""
        if event.worker.group == "fetch" and event.state == WorkerState.SUCCESS and event.worker.result is not None:
            fetched, problem = event.worker.result
            if problem is None:
                self.dismiss(fetched)
            else:
                self._refused(problem)

    def _refused(self, problem: str) -> None:
        self._fetching = False
        self.say(problem)
