"""The main screen's meaning query: `~TEXT` in the filter box lists the view's papers most about
TEXT, best first (meaning fused with words, reader/meaning/find.py, through the service), under
the header "About: TEXT", each card saying why. Esc clears it like a filter: the list comes back
as it was, cursor included. The ranking runs in the filter's worker (main.py); this part keeps
what it found and says it."""

from __future__ import annotations

from typing import Protocol

from textual.markup import escape

from reader.app.keys import key
from reader.app.screens.part import ScreenHost, ScreenPart
from reader.app.widgets.filter_box import MEANING
from reader.app.widgets.paper_list import PaperList
from reader.core.sanitize import clean_text
from reader.meaning.find import About, Hit


def meaning_text(typed: str) -> str | None:
    """The text of a meaning query (`~agents that learn`), or None when `typed` is a filter."""
    return typed[len(MEANING) :].strip() if typed.startswith(MEANING) else None


class AboutHost(ScreenHost, Protocol):
    @property
    def paper_list(self) -> PaperList: ...


class AboutQuery(ScreenPart[AboutHost]):
    def __init__(self, screen: AboutHost):
        super().__init__(screen)
        self.text: str | None = None  # the query's text while the list shows its answer
        self.found: About | None = None
        self.hits: dict[str, Hit] = {}
        self.before: str | None = None  # the paper highlighted before the first answer: Esc returns to it

    @property
    def active(self) -> bool:
        return self.text is not None

    def take(self, text: str, found: About) -> list[str]:
        """Keep an answer; the ids to show, best first."""
        if self.text is None:
            self.before = self.screen.paper_list.current
        self.text, self.found = text, found
        self.hits = {hit.id: hit for hit in found.hits}
        return [hit.id for hit in found.hits]

    def clear(self) -> str | None:
        """Forget the answer; the paper to highlight again."""
        before, self.before = self.before, None
        self.text, self.found, self.hits = None, None, {}
        return before

    def header(self) -> str:
        """The list's header rule: what the list is about, and (never silently) that words alone
        answered and why."""
        if self.text is None or self.found is None:
            return ""
        about = f"About: {escape(clean_text(self.text))}"  # the header rule reads markup: typed text is none
        return f"{about} · {self.found.note}" if self.found.note else f"{about} · best first, by {self.found.by}"

    def subtitle(self) -> str:
        """Under the filter box."""
        count = len(self.hits)
        return f"{count} papers about it" if count != 1 else "1 paper about it"

    def empty_message(self) -> str:
        return f"No paper here is about that — {key(self.screen.app, 'app.clear_filter')} clears it"

    def reason(self, paper_id: str) -> tuple[tuple[str, str], ...]:
        """A card's last line under a meaning query: its score, the query's words nearest it in
        meaning, the terms it shares word for word."""
        hit = self.hits.get(paper_id) if self.text is not None else None
        if hit is None:
            return ()
        why = [f"{hit.score:.2f}"]
        if hit.exact:
            why.append("holds the phrase")
        if hit.because:
            why.append(f"About: {clean_text(', '.join(hit.because))}")  # the query's words, as typed
        if hit.words:
            why.append(f"words: {', '.join(hit.words)}")
        return ((" · ".join(why), "paper-list--reason"),)
