"""The help screen: every key, gathered from the bindings themselves (so remaps show)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from reader.app.keys import key, keys_of
from reader.app.widgets.footer import KeyFooter
from reader.app.widgets.notice_line import NoticeLine

EXTRA_KEYS = [
    ("tab / shift+tab", "Switch between the sidebar and the list"),
    ("escape", "Close the detail view or a dialog; clear the filter"),
    ("ctrl+p", "Command palette: every action by name"),
]

NO_KEY = "no key"  # a binding that a remap of another left without one

ABOUT_FILTER = (
    "Filter with plain words (all must match) or arXiv's syntax: ti: au: abs: co: jr: cat: id: all:, "
    'AND OR ANDNOT, parentheses and "quoted phrases", e.g.  ti:agent AND (cat:cs.LG OR cat:cs.CL). '
    "Or rank by meaning: ~ then what the papers should be about, e.g.  ~agents that learn from their mistakes "
    '(the list becomes "About: …", best first, each card saying why; Esc returns)'
)


def key_table(sections: list[tuple[str, list[tuple[str, str]]]]) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(justify="right", style="bold", no_wrap=True)
    table.add_column()
    for title, rows in sections:
        table.add_row(Text(title, style="bold underline"), "")
        for keys, description in rows:
            table.add_row(Text(keys), Text(description))
        table.add_row("", "")
    return table


class HelpScreen(ModalScreen):
    BINDINGS = [Binding("escape,q,question_mark", "app.pop_screen", "Close", id="help.close")]

    def __init__(self, sections: list[tuple[str, list[tuple[str, str]]]]):
        super().__init__()
        self.sections = sections

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog help"):
            yield Static(Text("Keys", style="bold"))
            yield Static(key_table(self.sections + [("Everywhere", EXTRA_KEYS)]))
            yield Static(Text(ABOUT_FILTER, style="dim"))
            yield Static(Text(f"Press {key(self.app, 'help.close')} to close.", style="dim"))
        yield NoticeLine()  # notices under the keys, not over them
        yield KeyFooter()  # its own keys, not the list's showing through from below


def binding_rows(app, bindings: Sequence[Binding | tuple[str, ...]]) -> list[tuple[str, str]]:
    """(keys, description) for bindings, with the user's keymap applied: a key that a remap gave
    to another binding active at the same time is not listed (the keymap's notice says "Hide has
    no key"), and a binding left with none says so."""
    rows = []
    for binding in bindings:
        if not isinstance(binding, Binding):
            continue
        known = getattr(app, "known_bindings", {})
        keys = keys_of(app, binding.id) if binding.id and binding.id in known else binding.key.split(",")
        shown = " / ".join(app.get_key_display(Binding(k.strip(), "")) for k in keys) or NO_KEY
        rows.append((shown, binding.tooltip or binding.description or binding.action))
    return rows
