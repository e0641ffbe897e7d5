"""The paper list: fixed-height cards drawn line by line (Textual's Line API).

No widget per paper: the list holds a list of ids and draws only the lines on screen, so
100,000 papers scroll and filter as fast as 100. Nor a record per paper: what a card shows is
fetched (`fetch_cards`, from the search index) for the screenful around what is drawn, and kept
in a bounded cache. The fetch is a worker's: drawing never reads the disk, a card not fetched yet
is drawn as its id until CardsFetched brings it. Feed text is drawn as plain segments, never
parsed as markup."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import work
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive, var
from textual.scroll_view import ScrollView
from textual.strip import Strip

from reader.app.widgets.card_text import affiliation_line, author_line, fit_parts, tag_line
from reader.cache_index import CacheIndex
from reader.core.catalog import Catalog
from reader.core.texmath import tex_to_unicode
from reader.search_index import Card

CARD_HEIGHT = 7  # meta, title, two lines of abstract, authors, a notes line (or a blank one), a blank line
MARGIN = 2
CARDS_KEPT = 1000  # cards' data held (a few hundred bytes each); the screen shows ~6


class PaperList(ScrollView, can_focus=True):
    """Cards for `ids` (newest first); a cursor; posts Opened."""

    # Cards fit the width: a horizontal scrollbar would only take a line from the last card.
    DEFAULT_CSS = "PaperList { overflow-x: hidden; }"

    BINDINGS = [
        Binding("j,down", "cursor_down", "Down", show=False, id="list.down"),
        Binding("k,up", "cursor_up", "Up", show=False, id="list.up"),
        Binding("g,home", "first", "First", show=False, id="list.first"),
        Binding("G,end", "last", "Last", show=False, id="list.last"),
        Binding("pageup", "page_up", "Page up", show=False, id="list.page_up"),
        Binding("pagedown,space", "page_down", "Page down", show=False, id="list.page_down"),
        Binding("enter", "open", "Open", id="list.open"),
    ]

    COMPONENT_CLASSES = {
        "paper-list--meta",
        "paper-list--id",
        "paper-list--title",
        "paper-list--abstract",
        "paper-list--authors",
        "paper-list--affiliations",
        "paper-list--tag",
        "paper-list--star",
        "paper-list--unread",
        "paper-list--cursor",
        "paper-list--cursor-bar",
        "paper-list--empty",
        "paper-list--note",
        "paper-list--reason",
        "paper-list--user-tag",
        "paper-list--watch",
        "paper-list--updated",
    }

    cursor: reactive[int] = reactive(0, always_update=True, init=False)
    # The papers' marks and rows the cards are drawn from (bound to the main screen's; set in __init__).
    catalog: var[Catalog] = var(lambda: Catalog(CacheIndex()), init=False)

    class Opened(Message):
        def __init__(self, paper_id: str):
            super().__init__()
            self.paper_id = paper_id

    class CardsFetched(Message):
        """A worker read these cards (`wanted` the ids it asked for: those not found are not indexed yet)."""

        def __init__(self, wanted: list[str], found: dict[str, Card], generation: int):
            super().__init__()
            self.wanted = wanted
            self.found = found
            self.generation = generation

    class Highlighted(Message):
        """The cursor is on another paper (the screen reads its record ahead of an Enter)."""

        def __init__(self, paper_id: str):
            super().__init__()
            self.paper_id = paper_id

    def __init__(
        self,
        catalog: Catalog,
        fetch_cards: Callable[[list[str]], dict[str, Card]],
        *,
        math: str = "unicode",
        name: str | None = None,
        id: str | None = None,
    ):
        """`math`: "unicode" shows the TeX of titles and abstracts as Unicode, "tex" as arXiv wrote it."""
        super().__init__(name=name, id=id)
        self.set_reactive(PaperList.catalog, catalog)
        self.fetch_cards = fetch_cards
        self.math = math
        self.ids: Sequence[str] = []  # a view of the catalog's rows (packed_ids.IdRows) or a list
        self.card_height = CARD_HEIGHT
        self.empty_message = "No papers"
        # Drawn cards, by all that a card's look depends on but its place in the list: kept
        # when the ids shown change (a filter's results mostly start with the same newest papers).
        self._cards: LRUCache[tuple, list[Strip]] = LRUCache(256)
        self._drawn_index = catalog.index  # the index the drawn cards' topic labels come from
        self._card_data: LRUCache[str, Card] = LRUCache(CARDS_KEPT)
        self._unavailable: set[str] = set()  # asked for, not there (not indexed yet)
        self._asked: set[str] = set()  # asked of the fetching worker, not arrived yet
        self._generation = 0  # bumped when fetched cards are forgotten: a fetch begun earlier is stale
        self._highlighted: str | None = None  # the paper last posted as Highlighted
        # What the screen knows beyond the paper (why it is ranked, the user's tags, a note, a
        # newer version than the one read): (text, component class) parts of a card's last line.
        self.annotate: Callable[[str], tuple[tuple[str, str], ...]] = lambda paper_id: ()
        self._notes: dict[str, tuple[tuple[str, str], ...]] = {}  # annotations of the cards drawn lately

    # --- content ---

    def show(self, ids: Sequence[str], *, keep: str | None = None) -> None:
        """Show these papers; keep the cursor on paper `keep` (at the same screen row) if present."""
        old_row = self.cursor * self.card_height - self.scroll_y
        self.ids = ids
        self._notes.clear()  # the view may be another: its cards' last lines too
        self.virtual_size = Size(self.size.width, len(ids) * self.card_height)
        position = self._position_of(keep)
        if position is None:
            self.set_cursor(0 if keep is None else min(self.cursor, max(len(ids) - 1, 0)), scroll="top" if keep is None else "keep")
        else:
            self.cursor = position
            self._scroll_y(max(0, position * self.card_height - old_row))
        self.refresh()

    def _position_of(self, paper_id: str | None) -> int | None:
        if paper_id is None:
            return None
        try:
            return self.ids.index(paper_id)
        except ValueError:
            return None

    @property
    def current(self) -> str | None:
        return self.ids[self.cursor] if 0 <= self.cursor < len(self.ids) else None

    def watch_catalog(self) -> None:
        self.refresh_cards()  # the marks the cards show are the new catalog's

    def refresh_cards(self) -> None:
        """Redraw after marks or the catalog changed."""
        self._cards.clear()
        self._notes.clear()
        self.refresh()

    def forget_cards(self, ids: list[str] | None = None) -> None:
        """Fetch these papers' cards again (all when None): a sync changed them."""
        if ids is None:
            self._card_data.clear()
        else:
            for pid in ids:
                self._card_data.discard(pid)
        self._unavailable.clear()
        self._asked.clear()
        self._generation += 1
        self.refresh_cards()

    def cached_card(self, paper_id: str) -> Card | None:
        """The card data of a paper on or near the screen, if fetched."""
        return self._card_data.get(paper_id)

    def _card(self, index: int) -> Card | None:
        """The card data of the index-th paper if fetched. What is missing of it, or of the
        screenful above or below, is asked of a worker with those around it and a page either
        side (one read for the lot): a page up or down then usually finds its cards here."""
        page = max(1, self.size.height // self.card_height + 1)
        for near in (index, index + page, index - page):
            if 0 <= near < len(self.ids) and self._missing(self.ids[near]):
                window = self.ids[max(0, near - page) : near + 2 * page]
                wanted = [pid for pid in window if self._missing(pid)]
                self._asked.update(wanted)
                self._fetch(wanted, self._generation)
        return self._card_data.get(self.ids[index])

    def _missing(self, paper_id: str) -> bool:
        return paper_id not in self._card_data and paper_id not in self._unavailable and paper_id not in self._asked

    @work(thread=True, group="cards")
    def _fetch(self, wanted: list[str], generation: int) -> None:
        """Not exclusive: each fetch is for cards drawn meanwhile, all of them wanted."""
        found = {pid: self._as_shown(card) for pid, card in self.fetch_cards(wanted).items()}  # math converted here, off the UI thread
        self.post_message(self.CardsFetched(wanted, found, generation))

    def on_paper_list_cards_fetched(self, message: CardsFetched) -> None:
        message.stop()
        if message.generation != self._generation:  # forgotten meanwhile: those cards may be old
            return
        for pid in message.wanted:
            self._asked.discard(pid)
            if pid in message.found:
                self._card_data.set(pid, message.found[pid])
            else:
                self._unavailable.add(pid)
        self.refresh()

    def _as_shown(self, card: Card) -> Card:
        """The card with its math as the setting says: converted once, in the fetching worker,
        not at each drawing (the card data is kept)."""
        if self.math != "unicode":
            return card
        return dataclasses.replace(card, title=tex_to_unicode(card.title), abstract=tex_to_unicode(card.abstract))

    def on_resize(self) -> None:
        self.virtual_size = Size(self.size.width, len(self.ids) * self.card_height)
        self._cards.clear()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cards.clear()

    # --- cursor ---

    def set_cursor(self, index: int, *, scroll: str = "nearest") -> None:
        index = max(0, min(index, len(self.ids) - 1)) if self.ids else 0
        self.cursor = index
        top = index * self.card_height
        if scroll == "top" or top < self.scroll_y:
            self._scroll_y(top)
        elif top + self.card_height > self.scroll_y + self._shown_height:
            self._scroll_y(top + self.card_height - self._shown_height)

    def _scroll_y(self, y: float) -> None:
        # Forced: a list that fitted on screen has no scrollbar until the next layout, and Textual
        # would not scroll it meanwhile (papers synced above the cursor left it off screen).
        self.scroll_to(y=y, animate=False, immediate=True, force=True)

    @property
    def _shown_height(self) -> int:
        """The lines of cards on screen (a scrollbar's line is not one)."""
        return self.scrollable_content_region.height

    def watch_cursor(self) -> None:
        self.refresh()  # cards are cached with and without the cursor
        if self.current is not None and self.current != self._highlighted:
            self._highlighted = self.current
            self.post_message(self.Highlighted(self.current))

    def action_cursor_down(self) -> None:
        self.set_cursor(self.cursor + 1)

    def action_cursor_up(self) -> None:
        self.set_cursor(self.cursor - 1)

    def action_first(self) -> None:
        self.set_cursor(0)

    def action_last(self) -> None:
        self.set_cursor(len(self.ids) - 1)

    def _page(self) -> int:
        return max(1, self.size.height // self.card_height)

    def action_page_down(self) -> None:
        self.set_cursor(self.cursor + self._page())

    def action_page_up(self) -> None:
        self.set_cursor(self.cursor - self._page())

    def action_open(self) -> None:
        if self.current is not None:
            self.post_message(self.Opened(self.current))

    def next_matching(self, predicate: Callable[[str], bool]) -> bool:
        """Move to the next paper after the cursor that satisfies `predicate` (wrapping)."""
        count = len(self.ids)
        for step in range(1, count + 1):
            index = (self.cursor + step) % count
            if predicate(self.ids[index]):
                self.set_cursor(index)
                return True
        return False

    async def _on_click(self, event) -> None:
        index = int(self.scroll_y + event.y) // self.card_height
        if 0 <= index < len(self.ids):
            if index == self.cursor and event.chain >= 2:
                self.action_open()
            self.set_cursor(index)

    # --- drawing ---

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        line = int(self.scroll_y) + y
        if not self.ids:  # the message from the second line, wrapped at words (it may be a hint of a sentence or two)
            wrapped = Text(self.empty_message).wrap(self.app.console, max(10, width - MARGIN - 1))
            if 1 <= y <= len(wrapped):
                style = self.rich_style + self._part_style("paper-list--empty")
                text = wrapped[y - 1].plain.rstrip()
                return Strip([Segment(" " * MARGIN + text, style)]).adjust_cell_length(width, self.rich_style)
            return Strip.blank(width, self.rich_style)
        index, row = divmod(line, self.card_height)
        if index >= len(self.ids):
            return Strip.blank(width, self.rich_style)
        paper_id = self.ids[index]
        catalog = self.catalog
        if catalog.index is not self._drawn_index:  # a topic gone or renamed: the cards' labels change
            self._cards.clear()
            self._drawn_index = catalog.index
        data = self._card(index)
        notes = self._notes.get(paper_id) if row else None
        if notes is None:  # worked out at a card's first line, not at each line of it
            notes = self._notes[paper_id] = self.annotate(paper_id)
            if len(self._notes) > 4 * self._page() + 8:
                self._notes = {paper_id: notes}
        key = (paper_id, width, index == self.cursor, paper_id in catalog.read, paper_id in catalog.starred, data is not None, notes)
        card = self._cards.get(key)
        if card is None:
            card = self._draw_card(paper_id, data, width, index == self.cursor, notes)
            self._cards.set(key, card)
        return card[row]

    def _part_style(self, name: str) -> Style:
        """A component's colour and text style without its background: the card's shows through."""
        full = self.get_component_rich_style(name)
        return Style(color=full.color, bold=full.bold, italic=full.italic, dim=full.dim)

    def _draw_card(
        self, paper_id: str, paper: Card | None, width: int, is_cursor: bool, notes: tuple[tuple[str, str], ...] = ()
    ) -> list[Strip]:
        catalog = self.catalog
        read = paper_id in catalog.read

        style = self._part_style
        base = self.get_component_rich_style("paper-list--cursor") if is_cursor else self.rich_style
        dim = Style(dim=True) if read else Style()
        bar = Segment("▌ ", base + style("paper-list--cursor-bar")) if is_cursor else Segment(" " * MARGIN, base)
        inner = max(10, width - MARGIN - 1)  # text width, one column kept clear on the right

        def line(*parts: tuple[str, Style]) -> Strip:
            segments = [bar] + [Segment(text, base + part_style + dim) for text, part_style in parts if text]
            return Strip(segments).adjust_cell_length(width, base)

        def fit(text: str, room: int) -> str:
            plain = Text(text)
            plain.truncate(max(room, 1), overflow="ellipsis")
            return plain.plain

        star = ("★ ", style("paper-list--star")) if paper_id in catalog.starred else ("  ", Style())
        unread = ("● ", style("paper-list--unread")) if not read else ("  ", Style())
        if paper is None:  # its card is on its way (the id alone: finding its date by id would make a map of every id)
            return [
                line(star, unread, (paper_id, style("paper-list--meta"))),
                line(("loading…", style("paper-list--abstract"))),
                *[line() for _ in range(self.card_height - 3)],
                Strip.blank(width, self.rich_style),
            ]
        ident = "demo paper" if paper.demo else f"{paper.id}v{paper.version}"
        meta = f"{paper.published} · {paper.primary_category} · "
        # Tags stay right-aligned; whole tags are dropped (with "+N") rather than one cut.
        tag_text = tag_line(catalog.topics_of(paper_id, paper.published), inner - 4 - len(meta) - len(ident) - 2)
        gap = max(1, inner - 4 - len(meta) - len(ident) - len(tag_text))
        abstract = Text(paper.abstract).wrap(self.app.console, inner, overflow="fold")
        abstract_lines = [l.plain for l in abstract[:2]]
        if len(abstract) > 2 and abstract_lines:
            abstract_lines[1] = fit(abstract_lines[1].rstrip() + " …", inner)
        abstract_lines += [""] * (2 - len(abstract_lines))
        authors = author_line(paper)
        affiliations = affiliation_line(paper, inner - len(authors) - 3)
        return [
            line(
                star,
                unread,
                (meta, style("paper-list--meta")),
                (ident, style("paper-list--id")),
                (" " * gap, Style()),
                (tag_text, style("paper-list--tag")),
            ),
            line((fit(paper.title, inner), style("paper-list--title"))),
            line((abstract_lines[0], style("paper-list--abstract"))),
            line((abstract_lines[1], style("paper-list--abstract"))),
            line(
                (fit(authors, inner), style("paper-list--authors")),
                (f" · {affiliations}" if affiliations else "", style("paper-list--affiliations")),
            ),
            line(*fit_parts(notes, inner, style)),
            Strip.blank(width, self.rich_style),  # apart from the next card, whose marks line may be filled
        ]
