"""The main screen: the sidebar, the momentum chart, the paper list and the filter.

It owns the view's state (`view`, `unread_only`) as reactive vars bound down to its widgets;
widgets post messages up. Disk work runs in thread workers through the library service."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import var
from textual.widgets import Header
from textual.worker import WorkerState, get_current_worker

from reader.app.keys import key
from reader.app.memory import give_back_freed, keep_loaded
from reader.app.paper_actions import COPY, HIDE, OPEN, PDF, READ, SIMILAR, STAR, PaperScreen
from reader.app.screens.about import AboutQuery, meaning_text
from reader.app.screens.catchup import CatchUp, ListOrder
from reader.app.screens.collections import Collections
from reader.app.screens.detail_opening import DetailOpening
from reader.app.screens.export import ExportActions
from reader.app.screens.sync import Sync
from reader.app.screens.triage import Triage
from reader.app.widgets.chart import COUNTING, MomentumChart
from reader.app.widgets.filter_box import FilterBox
from reader.app.widgets.footer import KeyFooter
from reader.app.widgets.outside_watch import OutsideWatch
from reader.app.widgets.paper_list import PaperList
from reader.app.widgets.rising import RisingTable
from reader.app.widgets.sidebar import SidebarEntry, TopicSidebar
from reader.app.widgets.status import StatusLine
from reader.core.query import Node, operator_note, parse
from reader.core.ranking import NeedsStars
from reader.core.texmath import warm as warm_math
from reader.core.text import plural
from reader.errors import QueryError, ReaderError
from reader.meaning.find import About
from reader.paper_index import PaperIndex
from reader.service import ALL, FOR_YOU, HIDDEN, NEW, RISING, STARRED, UPDATED, LibraryService, View
from reader.service.outside import OutsideUpdate
from reader.service.search import SearchNotReady

VIEW_LABELS = {"starred": "Starred", "foryou": "For you", "new": "New", "updated": "Updated", "rising": "Rising", "hidden": "Hidden"}
FILTER_DELAY = 0.15  # seconds of typing quiet before a filter runs
FIRST_PAINT_WAIT = 2.0  # seconds the opening worker waits for the first cards to be drawn before counting


class MainScreen(PaperScreen, ExportActions):
    """Draws the panes and holds the view. Its parts keep the state and logic of their concerns
    (`triage`, `sync`, `collections`, `details`: see part.py); the screen hands them their keys
    and messages."""

    # In the order the footer shows them: what a narrow footer drops is in the help screen.
    BINDINGS = [
        STAR,
        READ,
        Binding("n", "next_unread", "Next", id="app.next_unread", tooltip="Next unread paper"),
        # A priority binding runs before the keys typed after it are handed on, so they land in
        # the filter box rather than on the list's single-key actions.
        Binding("slash", "filter", "Filter", id="app.filter", priority=True),
        Binding("R", "sync", "Sync", id="app.sync"),
        Binding("e", "export", "Export", id="app.export"),
        Binding("question_mark", "app.help", "Help", id="app.help"),
        OPEN,
        Binding("u", "toggle_unread_only", "Unread", id="app.unread_only"),
        Binding("q", "app.quit", "Quit", id="app.quit"),
        PDF,
        COPY,
        HIDE,
        SIMILAR,
        Binding("escape", "clear_filter", "Clear filter", show=False, id="app.clear_filter"),
        Binding("f", "for_you_scope", "For you", show=False, id="app.for_you", tooltip="For you: every topic, or the last topic only"),
        Binding("a", "add_topic", "Add topic", show=False, id="app.add_topic"),
        Binding(
            "plus",
            "add_paper",
            "Add a paper",
            show=False,
            id="app.add_paper",
            tooltip="Add a paper by its arXiv id or link: fetched, kept and shown",
        ),
        Binding(
            "w",
            "add_watch",
            "Add watch",
            show=False,
            id="app.add_watch",
            tooltip="Add a watch: names and words to spot in the cache, e.g. au:levine",
        ),
        Binding(
            "d", "delete", "Delete", show=False, id="app.delete_topic", tooltip="Delete the selected topic, watch or tag (papers stay)"
        ),
        Binding("f2", "rename_tag", "Rename tag", show=False, id="app.rename_tag"),
        Binding(
            "S", "sort", "Sort", show=False, id="app.sort", tooltip="Sort: newest first, last updated, title, first author, For you score"
        ),
        Binding("A", "mark_all_read", "All read", show=False, id="app.mark_all_read", tooltip="Mark every paper shown read (asks first)"),
        Binding(
            "U", "undo_read", "Undo all read", show=False, id="app.undo_read", tooltip="Undo the last marking of every paper shown read"
        ),
    ]
    HORIZONTAL_BREAKPOINTS = [(0, "-very-narrow"), (70, "-narrow"), (100, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-small"), (32, "-tall")]

    view: var[View] = var(ALL, init=False)
    unread_only: var[bool] = var(False, init=False)

    def __init__(self, service: LibraryService, *, sync_on_start: bool = True, client_options=None):
        super().__init__(service)
        self.sync_on_start = sync_on_start
        self.client_options = client_options
        self.filter_text = ""
        self.filter_query: Node | None = None
        self.loaded = False  # the search index is current (until then, filters scan the shards)
        self.triage = Triage(self)
        self.sync = Sync(self)
        self.collections = Collections(self)
        self.details = DetailOpening(self)
        self.order = ListOrder(self)
        self.catchup = CatchUp(self)
        self.about = AboutQuery(self)

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            yield TopicSidebar(id="sidebar").data_bind(MainScreen.view)
            with Vertical(id="content"):
                yield MomentumChart(id="chart")
                yield PaperList(self.service.library, self._fetch_cards, math=self.service.settings.math, id="papers")
                yield RisingTable(id="rising")
                yield FilterBox(id="filter")
        yield StatusLine(id="status")
        yield KeyFooter(compact=True)
        yield OutsideWatch(self.service, self._take_outside, busy=self._reading_cache, syncing=lambda: self.status.syncing)

    @property
    def paper_list(self) -> PaperList:
        return self.query_one("#papers", PaperList)

    @property
    def sidebar(self) -> TopicSidebar:
        return self.query_one("#sidebar", TopicSidebar)

    @property
    def status(self) -> StatusLine:
        return self.query_one("#status", StatusLine)

    @property
    def rising_table(self) -> RisingTable:
        return self.query_one("#rising", RisingTable)

    def on_mount(self) -> None:
        self.paper_list.annotate = self._annotate
        self.rising_table.display = False
        self.paper_list.empty_message = "Loading the cache…"
        self.paper_list.focus()
        self.open_cache()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # A "/" typed into the filter is a character (hep-th/9901001).
        return not (action == "filter" and isinstance(self.focused, FilterBox))

    def _fetch_cards(self, ids: list[str]):
        return self.service.cards(ids)

    def _annotate(self, paper_id: str) -> tuple[tuple[str, str], ...]:
        return self.triage.annotate(paper_id) + self.about.reason(paper_id)

    @property
    def filtering(self) -> bool:
        """A filter or a meaning query narrows the view."""
        return self.filter_query is not None or self.about.active

    # --- loading the cache -----------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="open")
    def open_cache(self) -> None:
        """Index and marks first: counts, chart and list order are right at once; then the
        search index is brought up to date (the cards and filters meanwhile read the shards)."""
        try:
            library = self.service.open()
            due = self.sync_on_start and bool(self.service.topics) and self.service.topic_sync.sync_due()
        except ReaderError as error:
            self.app.call_from_thread(self.app.notify, f"Cannot read the cache: {error}", severity="error", timeout=30)
            return
        # The newest cards first; the counts and the chart's weeks (a pass over every paper:
        # ~0.5 s at 1,000,000) are made here meanwhile, never on the UI's thread, and follow.
        painted = threading.Event()
        self.app.call_from_thread(self._opened, library, due, painted)
        painted.wait(FIRST_PAINT_WAIT)  # the UI's thread draws the cards first, not sharing the GIL with the count
        version = library.marks_version
        counts = library.counted(library.index)
        view = self.view
        if view.kind in ("all", "topic"):
            self.service.momentum(view)
        self.app.call_from_thread(self._counted, library, counts, version)
        self.prepare_search(None)
        self.triage.read(visit=True)
        if self.paper_list.math == "unicode":
            warm_math()  # here, after the first paint, not in the fetch of the first cards with math

    def _opened(self, library, sync_due: bool, painted: threading.Event) -> None:
        self.loaded = self.service.search_ready  # (the cache's index, once the demo gave way, is not yet)
        self.paper_list.set_library(library)
        self.paper_list.empty_message = self._empty_message()
        self.refresh_list()
        self.refresh_sidebar()
        self.refresh_chart()
        self.call_after_refresh(painted.set)
        self._show_warnings(self.service.take_warnings())
        if (notice := self.service.notice()) is not None:
            self.status.say(f"{notice} · {key(self.app, 'app.sync')} syncs your topics" if self.service.is_demo else notice)
        if sync_due:
            self.sync.sync_all()

    def _counted(self, library, counts: dict, version: int) -> None:
        library.take_counts(counts, version)
        if not library.counted_already:  # a mark came meanwhile (rare): counted again, here
            library.counts()
        self.refresh_sidebar()
        self.refresh_chart()

    def prepare_search(self, changed: list[str] | None, index: PaperIndex | None = None) -> None:
        """In a worker: the search index brought up to date with the cache (or with the papers a
        sync changed, ready for filters in `index`'s order); when it cannot be, filters and
        cards keep reading the shards."""
        try:
            self.service.prepare_search(changed, index)
        except ReaderError as error:
            message = f"Search index: {error}. Filters scan the cache instead (slower)."
            self.app.call_from_thread(self.app.notify, message, severity="warning", timeout=15)
        give_back_freed()  # what reading the index and mapping the search rows left (~40 MB at 1,000,000 papers)
        self.app.call_from_thread(self._search_prepared, self.service.take_warnings())

    def _search_prepared(self, warnings: list[str]) -> None:
        self.loaded = self.service.search_ready
        if self.loaded and self.order.owed:  # shown newest first while the index was being built
            self.refresh_list()
        self._show_warnings(warnings)
        keep_loaded()

    def _show_warnings(self, warnings: list[str]) -> None:
        for warning in warnings:
            self.app.notify(warning, title="Cache repaired", severity="warning", timeout=20)
        if warnings and not self.status.syncing:  # the last one stays there once its notice is gone
            self.status.say(warnings[-1])

    # --- drawing the panes -----------------------------------------------------------------------

    def refresh_everything(self, *, keep: str | None = None) -> None:
        self.refresh_sidebar()
        self.refresh_chart()
        self.refresh_list(keep=keep)

    def refresh_sidebar(self) -> None:
        library, service, triage = self.service.library, self.service, self.service.triage.sets
        if not library.counted_already:  # while the opening worker counts
            self.sidebar.set_entries(self._uncounted_entries())
            return
        entries = [
            SidebarEntry(ALL, self.sidebar_label(ALL), *library.counts()),
            SidebarEntry(STARRED, "Starred", *library.counts(starred=True)),
            SidebarEntry(FOR_YOU, "For you", detail=self.triage.sidebar_detail()),
            SidebarEntry(NEW, "New", *service.count(triage.new), detail=None if triage.new else "nothing new"),
            SidebarEntry(UPDATED, "Updated", *service.count(triage.updated), detail=None if triage.updated else "no new versions"),
            SidebarEntry(RISING, "Rising", detail="topic momentum"),
        ]
        if service.topics:
            entries.append(SidebarEntry.heading("Topics"))
        for topic in service.topics:
            new = service.count(triage.new_by_topic.get(topic.name, set()))[0]
            entries.append(SidebarEntry(View.of_topic(topic.name), topic.name, *library.counts(topic.name), new=new))
        if triage.watches:
            entries.append(SidebarEntry.heading("Watches"))
            entries += [
                SidebarEntry(View.of_watch(w.name), w.name, *service.count(triage.watched.get(w.name, set()))) for w in triage.watches
            ]
        if tags := service.tags():
            entries.append(SidebarEntry.heading("Tags"))
            entries += [SidebarEntry(View.of_tag(name), name, count) for name, count in tags.items()]
        hidden = library.counts(hidden=True)
        if hidden[0] or self.view == HIDDEN:
            entries += [SidebarEntry.heading("Not interested"), SidebarEntry(HIDDEN, "Hidden", *hidden)]
        self.sidebar.set_entries(entries)

    def _uncounted_entries(self) -> list[SidebarEntry]:
        """The sidebar's views before the papers are counted (the same lines: nothing moves when
        the counts come)."""
        counting = "counting…"
        entries = [
            SidebarEntry(ALL, self.sidebar_label(ALL), detail=counting),
            SidebarEntry(STARRED, "Starred", detail=counting),
            SidebarEntry(FOR_YOU, "For you", detail=self.triage.sidebar_detail()),
            SidebarEntry(NEW, "New", detail=counting),
            SidebarEntry(UPDATED, "Updated", detail=counting),
            SidebarEntry(RISING, "Rising", detail="topic momentum"),
        ]
        if self.service.topics:
            entries.append(SidebarEntry.heading("Topics"))
            entries += [SidebarEntry(View.of_topic(topic.name), topic.name, detail=counting) for topic in self.service.topics]
        return entries

    def sidebar_label(self, view: View) -> str:
        """What the sidebar calls a view (also said in the export dialog)."""
        if view == ALL:
            return "All papers (demo)" if self.service.is_demo else "All papers"
        return VIEW_LABELS.get(view.kind, view.name or view.kind)

    def refresh_chart(self) -> None:
        chart = self.query_one("#chart", MomentumChart)
        view = self.view
        if view == STARRED:
            chart.show(None, "Starred", plural(self.service.library.counts(starred=True)[0], "starred paper", thousands=True))
        elif view == FOR_YOU:
            chart.show(None, "For you", self.triage.headline())
        elif view == NEW:
            chart.show(None, "New", "Papers that arrived since your last visit (a topic's first sync is not new)")
        elif view == UPDATED:
            chart.show(None, "Updated", "Papers you read that arXiv has since revised: opening one shows the new version")
        elif view.kind == "watch":
            query = next((w.query for w in self.service.triage.sets.watches if w.name == view.name), "")
            chart.show(None, f"Watch · {view.name}", f"Papers matching {query}")
        elif view.kind == "tag":
            chart.show(
                None, f"Tag · {view.name}", f"{plural(len(self.service.select(view)), 'paper', thousands=True)} you tagged {view.name}"
            )
        elif view == HIDDEN:
            chart.show(
                None,
                "Hidden",
                f"Papers you are not interested in: left out of every other view · {key(self.app, 'app.hide')} shows one again",
            )
        elif view == RISING:
            missing = f" · — means not synced ({key(self.app, 'app.sync')} syncs)" if self.triage.rising_unsynced else ""
            chart.show(None, "Rising", f"Topics by their last four weeks against the four before · Enter opens one{missing}")
        elif not self.service.charted_already(view) and not self.service.library.counted_already:  # the opening worker counts
            chart.show(None, view.topic or self.sidebar_label(ALL), COUNTING)
        elif not self.service.charted_already(view):  # a first count of the view's weeks: in the chart's worker
            chart.count(view.topic or self.sidebar_label(ALL), lambda: self.service.chart(view), self._rising_title(view))
        else:
            momentum, title, headline = self.service.chart(view)
            chart.show(momentum, title + self._rising_title(view), headline)

    def _rising_title(self, view: View) -> str:
        return self.triage.rising_title(view.topic) if view.topic else ""

    def _empty_message(self) -> str:  # noqa: C901 (one message per kind of empty view)
        """Say what is empty and what to do about it."""
        if self.about.active:
            return self.about.empty_message()
        if self.filter_query is not None:
            return f"No papers match {self.filter_text} — {key(self.app, 'app.clear_filter')} clears the filter"
        if self.view == FOR_YOU:
            ranking = self.service.for_you
            if isinstance(ranking, NeedsStars):
                return ranking.message
            if ranking is None:  # the first ranking since the start: it reads every paper's words
                papers = len(self.service.library.index)
                # Measured at 100,000 papers: 4 s from the counts saved by an earlier ranking, 18 s without.
                wait = (
                    " (the first after a start reads every paper: seconds; the first time, up to a second per 5,000 papers)"
                    if papers > 20_000
                    else ""
                )
                return f"Ranking {plural(papers, 'paper', thousands=True)} by your stars{wait}… the other views work meanwhile"
            return "Nothing left to rank: every paper here is read, starred or hidden"
        if self.unread_only:
            return f"Nothing unread here — {key(self.app, 'app.unread_only')} shows read papers too"
        if self.view == STARRED:
            return f"No starred papers yet — {key(self.app, 'app.star')} stars the highlighted paper"
        if self.view == HIDDEN:
            return f"No hidden papers — {key(self.app, 'app.hide')} hides a paper you are not interested in"
        if self.view == NEW:
            return f"Nothing new since your last visit — {key(self.app, 'app.sync')} syncs your topics"
        if self.view == UPDATED:
            return "None of the papers you read has a newer version"
        if self.view.kind == "watch":
            return f"No cached paper matches the watch {self.view.name} yet"
        if self.view.kind == "tag":
            return f"No papers tagged {self.view.name} — {key(self.app, 'app.tags')} tags the highlighted paper"
        if self.view.topic is not None:
            return f"No papers in {self.view.topic} yet — {key(self.app, 'app.sync')} syncs it from arXiv"
        return f"No papers yet — {key(self.app, 'app.sync')} syncs your topics, {key(self.app, 'app.add_topic')} adds a topic"

    def refresh_list(self, *, keep: str | None = None) -> None:
        """Recompute which papers the list shows (view, unread only, filter), keeping the cursor."""
        keep = keep or self.paper_list.current
        if self.filtering:
            self.run_filter(self.filter_text, keep)
            return
        self._show(self.service.select(self.view, unread=self.unread_only), keep)

    def _show(self, ids: Sequence[str], keep: str | None) -> None:
        self.order.arrange(ids, keep)  # in the order chosen for the view (sorted in a worker)

    def show_now(self, ids: Sequence[str], keep: str | None) -> None:
        self.paper_list.empty_message = self._empty_message()
        self.paper_list.show(ids, keep=keep)
        unread = (
            f"Unread only · {plural(len(ids), 'paper', thousands=True)} · {key(self.app, 'app.unread_only')} shows all"
            if self.unread_only
            else ""
        )
        order = "" if self.about.active else self.order.header()  # a meaning query lists best first, never sorted
        title = " · ".join(part for part in (self.about.header(), unread, order) if part)
        self.paper_list.set_class(bool(title), "-titled")  # a rule above the list, bearing the title
        self.paper_list.border_title = title

    def watch_view(self, view: View) -> None:
        self.triage.view_shown(view)
        rising = view == RISING
        self.rising_table.display = rising
        self.paper_list.display = not rising
        if rising:
            self.triage.rank_topics()
        self.refresh_chart()
        self.refresh_list(keep=None) if self.filtering else self._show(self.service.select(self.view, unread=self.unread_only), None)

    def watch_unread_only(self) -> None:
        self.refresh_list()

    def marks_changed(self) -> None:
        self.paper_list.refresh_cards()
        self.refresh_sidebar()
        self.triage.marks_touched()

    def current_paper_id(self) -> str | None:
        return self.paper_list.current

    # --- events from the panes ---------------------------------------------------------------------

    @on(TopicSidebar.ViewChosen)
    def _view_chosen(self, event: TopicSidebar.ViewChosen) -> None:
        self.view = event.view

    @on(TopicSidebar.OptionSelected, "#sidebar")
    def _sidebar_enter(self) -> None:
        self.paper_list.focus()

    @on(RisingTable.TopicChosen)
    def _rising_topic_chosen(self, event: RisingTable.TopicChosen) -> None:
        self.view = View.of_topic(event.topic)
        self.paper_list.focus()

    @on(PaperList.Highlighted)
    def _highlighted(self, event: PaperList.Highlighted) -> None:
        self.details.highlighted(event.paper_id)

    @on(PaperList.Opened)
    def _open_detail(self, event: PaperList.Opened) -> None:
        self.details.open(event.paper_id)

    def on_screen_resume(self) -> None:
        self.marks_changed()

    # --- actions -------------------------------------------------------------------------------------

    def action_next_unread(self) -> None:
        read = self.service.library.read
        if not self.paper_list.next_matching(lambda pid: pid not in read):
            self.app.notify("No unread papers here.")

    def action_toggle_unread_only(self) -> None:
        self.unread_only = not self.unread_only

    def action_sort(self) -> None:
        if self.about.active:
            self.app.notify(f"Listed best first by meaning: {key(self.app, 'app.clear_filter')} returns to the list and its order")
            return
        self.order.cycle()

    def action_mark_all_read(self) -> None:
        self.catchup.mark_all_read()

    def action_undo_read(self) -> None:
        self.catchup.undo()

    def action_for_you_scope(self) -> None:
        self.triage.for_you_scope()

    def start_ranking(self) -> None:
        self.triage.start_ranking()

    def action_sync(self) -> None:
        self.sync.sync_all()

    def action_add_topic(self) -> None:
        self.collections.add_topic()

    def action_add_paper(self) -> None:
        from reader.app.screens.adding import PaperAdding  # holds no state between two additions

        PaperAdding(self).open()

    def action_add_watch(self) -> None:
        self.collections.add_watch()

    def action_rename_tag(self) -> None:
        self.collections.rename_tag()

    def action_delete(self) -> None:
        """d: the selected topic, watch or tag, after asking."""
        self.collections.delete()

    # --- filter ----------------------------------------------------------------------------------------

    def action_filter(self) -> None:
        self.query_one("#filter", FilterBox).open()

    def action_clear_filter(self) -> None:
        box = self.query_one("#filter", FilterBox)
        if box.display:
            box.action_clear()

    @on(FilterBox.Changed, "#filter")
    def _filter_typed(self, event: FilterBox.Changed) -> None:
        self.run_filter(event.value.strip(), self.paper_list.current, delay=FILTER_DELAY)

    @on(FilterBox.Cleared)
    def _filter_cleared(self) -> None:
        self.workers.cancel_group(self, "filter")
        self._apply_filter("", None, None, None)
        self.paper_list.focus()

    @on(FilterBox.Done)
    def _filter_done(self) -> None:
        self.paper_list.focus()

    @work(thread=True, exclusive=True, group="filter")
    def run_filter(self, text: str, keep: str | None, delay: float = 0) -> None:
        """One filter at a time: each key typed starts a new one and cancels this (after a short
        quiet, so typing stays smooth); an invalid query keeps the last good filter."""
        worker = get_current_worker()
        if delay:
            time.sleep(delay)
        if worker.is_cancelled:
            return
        if not text:
            self.app.call_from_thread(self._apply_filter, "", None, None, keep)
            return
        if (about := meaning_text(text)) is not None:
            self._rank_about(text, about, keep)
            return
        try:
            query = parse(text, implicit_and=True)
        except QueryError as error:
            self.app.call_from_thread(self._filter_error, error.describe())
            return
        ids = self.service.select(self.view, unread=self.unread_only, query=query)
        if not worker.is_cancelled:
            self.app.call_from_thread(self._apply_filter, text, query, ids, keep)

    def _rank_about(self, typed: str, text: str, keep: str | None) -> None:
        """`~TEXT`, in the filter's worker: the view's papers most about TEXT (an empty text
        leaves the list as it was)."""
        if not text:
            self.app.call_from_thread(self._apply_filter, "", None, None, None)
            return
        try:
            found = self.service.meaning.about(text, self.view, unread=self.unread_only)
        except SearchNotReady as error:
            self.app.call_from_thread(self._filter_error, f"Not yet: {error}")
            return
        except ReaderError as error:
            self.app.call_from_thread(self._filter_error, f"Cannot rank by meaning: {error}")
            return
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._apply_about, typed, text, found, keep)

    def _apply_about(self, typed: str, text: str, found: About, keep: str | None) -> None:
        # The same query again (a mark, the unread toggle) keeps the cursor; a new one starts on the best.
        again = self.about.active and typed == self.filter_text
        self.filter_text, self.filter_query = typed, None
        ids = self.about.take(text, found)
        self.order.drop_pending()
        self.show_now(ids, keep if again and keep in ids else (ids[0] if ids else None))  # best first: never re-sorted
        self.query_one("#filter", FilterBox).border_subtitle = self.about.subtitle()

    def _filter_error(self, message: str) -> None:
        # The message may quote the query or a path: text, never markup.
        self.query_one("#filter", FilterBox).border_subtitle = escape(message)

    def _apply_filter(self, text: str, query: Node | None, ids: Sequence[str] | None, keep: str | None) -> None:
        if self.about.active:  # the list as it was before the meaning query, cursor included
            before = self.about.clear()
            keep = keep if ids is not None else before
        self.filter_text, self.filter_query = text, query
        box = self.query_one("#filter", FilterBox)
        if ids is None:
            box.border_subtitle = ""
            self.refresh_list(keep=keep)
            return
        self._show(ids, keep)
        note = "" if self.loaded else " (search index not ready: scanned the cache)"
        operators = operator_note(text)  # `quantum and monte` searches the word "and": said, query kept
        box.border_subtitle = f"{plural(len(ids), 'match', 'matches', thousands=True)}{note}" + (f" · {operators}" if operators else "")

    # --- changes made elsewhere ------------------------------------------------------------------------

    def _reading_cache(self) -> bool:
        """Whether the screen reads the cache itself (at its opening, after its sync, for a topic it
        removed): what other processes changed is taken in with it."""
        return any(
            worker.node is self
            and worker.group in ("open", "reload", "topics")
            and worker.state in (WorkerState.PENDING, WorkerState.RUNNING)
            for worker in self.app.workers
        )

    def _take_outside(self, update: OutsideUpdate) -> None:
        """What another process changed (the CLI, a second app, a cron sync), shown quietly: the
        sidebar is the news. Cursor, filter and view stay, unless the view's topic, watch or tag
        is gone; an open dialog or detail view stays too."""
        service = self.service
        topics = [topic.name for topic in service.topics]
        keep = self.paper_list.current
        if not service.apply_outside(update):
            return  # out of date: the files are read again at the next look
        self._show_warnings(update.warnings)
        if service.is_demo and "index.json" in update.changed:
            self.sync.reload([])  # papers synced elsewhere: the cache takes the demo's place
        for name in set(topics) - {topic.name for topic in service.topics}:
            self.triage.topic_removed(name)
        if "index.json" in update.changed:
            self.paper_list.forget_cards()  # papers synced elsewhere: their cards are fetched again
        if (gone := self._view_gone()) is not None:
            self.status.say(f"The {self.view.kind} {gone!r} shown was removed by another process: All papers shown instead.")
            self.view = ALL
        self.refresh_everything(keep=keep)
        if update.cache is not None:
            keep_loaded()  # the new index and counts: out of the collector's full passes
        self.triage.marks_touched()
        if self.view == RISING:
            self.triage.rank_topics()
        detail = self.details.opened
        if detail is not None and detail.is_current:
            detail.marks_changed()
            if update.library_state is not None or update.cache is not None:
                detail.load_paper(detail.paper_id)  # its note and tags (not while the note is typed)

    def _view_gone(self) -> str | None:
        """The name of the view's topic, watch or tag, if there is no longer one of that name."""
        view, service = self.view, self.service
        names = {
            "topic": lambda: {topic.name for topic in service.topics},
            "watch": lambda: {watch.name for watch in service.triage.sets.watches},
            "tag": lambda: set(service.tags()),
        }.get(view.kind)
        return view.name if names is not None and view.name is not None and view.name not in names() else None

    # --- export ----------------------------------------------------------------------------------------

    def export_selections(self) -> list[tuple[str, list[str]]]:
        starred = self.service.select(STARRED)
        shown = self.paper_list.ids
        where = self.sidebar_label(self.view) + (f", filter {self.filter_text}" if self.filtering else "")
        choices = [(plural(len(starred), "starred paper", thousands=True), list(starred))]
        if self.view != STARRED or self.filtering:
            choices.append((f"{plural(len(shown), 'paper', thousands=True)} shown ({where})", list(shown)))
        return choices
