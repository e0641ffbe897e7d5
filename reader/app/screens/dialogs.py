"""Small modal dialogs: add a topic, confirm. Each has its own footer; Tab and
Shift+Tab move between its fields and buttons."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from reader.app.widgets.footer import KeyFooter
from reader.core.query import parse
from reader.errors import QueryError

ADD_TEXTS = {
    "topic": ("Add a topic", "Name, e.g. RL for LLM Agents", 'arXiv query, e.g. abs:"reinforcement learning" AND cat:cs.LG'),
    "watch": ("Add a watch: names and words to spot in the cache", "Name, e.g. Levine", 'arXiv query, e.g. au:levine OR abs:"process reward"'),
}


class AddTopicDialog(ModalScreen[tuple[str, str] | None]):
    """Name and arXiv query of a topic (or a watch: `kind`), validated before it can be saved."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, existing: list[str], kind: str = "topic"):
        super().__init__()
        self.existing = {name.casefold() for name in existing}
        self.kind = kind

    def compose(self) -> ComposeResult:
        title, name_hint, query_hint = ADD_TEXTS[self.kind]
        with Vertical(classes="dialog"):
            yield Label(title, classes="dialog-title")
            yield Input(placeholder=name_hint, id="topic-name")
            yield Input(placeholder=query_hint, id="topic-query")
            yield Static("", id="topic-error", classes="dialog-error", markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Add", variant="primary", id="add")
                yield Button("Cancel", id="cancel")
        yield KeyFooter()

    def _problem(self) -> str | None:
        name = self.query_one("#topic-name", Input).value.strip()
        query = self.query_one("#topic-query", Input).value.strip()
        if not name:
            return f"The {self.kind} needs a name."
        if name.casefold() in self.existing:
            return f"There is already a {self.kind} named {name!r}."
        try:
            parse(query)
        except QueryError as error:
            return f"Invalid query: {error.describe()}"
        return None

    def on_input_changed(self) -> None:
        self.query_one("#topic-error", Static).update("")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "topic-name":
            self.query_one("#topic-query", Input).focus()
        else:
            self._submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "add":
            self._submit()
        else:
            self.dismiss(None)

    def _submit(self) -> None:
        problem = self._problem()
        if problem:
            self.query_one("#topic-error", Static).update(problem)
            return
        self.dismiss((self.query_one("#topic-name", Input).value.strip(), self.query_one("#topic-query", Input).value.strip()))

    def action_cancel(self) -> None:
        self.dismiss(None)


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


class TextDialog(ModalScreen[str | None]):
    """One line of text (e.g. a tag's new name); `check` says what is wrong with it, beside the field."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, value: str, check: Callable[[str], str | None]):
        super().__init__()
        self.title_text = title
        self.value = value
        self.check = check

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.title_text, classes="dialog-title", markup=False)
            yield Input(value=self.value, id="text")
            yield Static("", id="text-error", classes="dialog-error", markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Save", variant="primary", id="ok")
                yield Button("Cancel", id="cancel")
        yield KeyFooter()

    def on_input_changed(self) -> None:
        self.query_one("#text-error", Static).update("")

    def on_input_submitted(self) -> None:
        self._submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "ok":
            self._submit()
        else:
            self.dismiss(None)

    def _submit(self) -> None:
        value = self.query_one("#text", Input).value.strip()
        problem = self.check(value)
        if problem:
            self.query_one("#text-error", Static).update(problem)
            return
        self.dismiss(value)

    def action_cancel(self) -> None:
        self.dismiss(None)
