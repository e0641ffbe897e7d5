"""The main screen: the sidebar, the momentum chart, the paper list and the filter.

It owns the view's state (`view`, `unread_only`, `syncing`, `status_text`, the list's `catalog`,
the `chart_data`) as reactive vars bound down to its widgets; widgets post messages up. Disk work
runs in thread workers through the library service; its parts (part.py) keep the state and logic
of their concerns, say what they changed with `Redraw` (and the papers they arranged for the list
with `PapersArranged`), and their workers' results, and what a part did that another follows,
come back as messages this screen hands to the part they belong to (main_messages.py; the table
in docs/architecture.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.reactive import var
from textual.widgets import Header
from textual.worker import Worker

from reader.app.keys import key
from reader.app.paper_actions import PaperScreen
from reader.app.screens.about import AboutQuery
from reader.app.screens.cache_reading import CacheReading
from reader.app.screens.catchup import CatchUp, ListOrder
from reader.app.screens.detail_opening import DetailOpening
from reader.app.screens.export import ExportActions
from reader.app.screens.list_filter import FILTER_DELAY, ListFilter
from reader.app.screens.main_bindings import MAIN_BINDINGS
from reader.app.screens.main_messages import PartMessages
from reader.app.screens.part import KEEP_CURRENT, PapersArranged, Redraw
from reader.app.screens.sidebar_names import SidebarNames
from reader.app.screens.sync import Sync
from reader.app.screens.triage import Triage
from reader.app.screens.view_panes import ViewPanes
from reader.app.widgets.chart import ChartData, MomentumChart
from reader.app.widgets.filter_box import FilterBox
from reader.app.widgets.footer import KeyFooter
from reader.app.widgets.outside_watch import OutsideWatch
from reader.app.widgets.paper_list import PaperList
from reader.app.widgets.rising import RisingTable
from reader.app.widgets.sidebar import SidebarEntry, TopicSidebar
from reader.app.widgets.status import StatusLine
from reader.cache_index import CacheIndex
from reader.core.catalog import Catalog
from reader.core.text import plural
from reader.service import ALL, FOR_YOU, RISING, STARRED, LibraryService, View


class MainScreen(PaperScreen, ExportActions, PartMessages):
    """Draws the panes and holds the view. Its parts keep the state and logic of their concerns
    (`triage`, `sync`, `sidebar_names`, `details`, `list_filter`, `reading`...: see part.py); the
    screen hands them their keys, and their messages (main_messages.py)."""

    BINDINGS = MAIN_BINDINGS
    HORIZONTAL_BREAKPOINTS = [(0, "-very-narrow"), (70, "-narrow"), (100, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-small"), (32, "-tall")]

    view: var[View] = var(ALL, init=False)
    unread_only: var[bool] = var(False, init=False)
    syncing: var[bool] = var(False, init=False)  # a sync of ours runs (set by the sync part)
    status_text: var[str] = var("", init=False)  # what the status line says
    sidebar_entries: var[tuple[SidebarEntry, ...]] = var((), init=False)  # the views with their counts
    chart_data: var[ChartData] = var(ChartData(None, "", ""), init=False)  # the view's chart, or its count to make
    catalog: var[Catalog] = var(lambda: Catalog(CacheIndex()), init=False)  # the papers and marks the list draws (the cache's once read)

    def __init__(self, service: LibraryService, *, sync_on_start: bool = True, client_options=None):
        super().__init__(service)
        self.set_reactive(MainScreen.catalog, service.catalog)
        self.sync_on_start = sync_on_start
        self.client_options = client_options
        self.loaded = False  # the search index is current (until then, filters scan the shards)
        self.reading = CacheReading(self)
        self.panes = ViewPanes(self)
        self.list_filter = ListFilter(self)
        self.triage = Triage(self)
        self.sync = Sync(self)
        self.sidebar_names = SidebarNames(self)
        self.details = DetailOpening(self)
        self.order = ListOrder(self)
        self.catchup = CatchUp(self)

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            yield TopicSidebar(id="sidebar").data_bind(MainScreen.view, entries=MainScreen.sidebar_entries)
            with Vertical(id="content"):
                yield MomentumChart(id="chart").data_bind(data=MainScreen.chart_data)
                yield PaperList(self.catalog, self._fetch_cards, math=self.service.settings.math, id="papers").data_bind(MainScreen.catalog)
                yield RisingTable(id="rising")
                yield FilterBox(id="filter")
        yield StatusLine(id="status").data_bind(MainScreen.syncing, text=MainScreen.status_text)
        yield KeyFooter(compact=True)
        yield OutsideWatch(self.service, busy=self.reading.reading).data_bind(MainScreen.syncing)

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
    def status_shown(self) -> bool:
        """Whether the status line shows (a short terminal hides it: what it says is notified)."""
        return self.status.display

    @property
    def rising_table(self) -> RisingTable:
        return self.query_one("#rising", RisingTable)

    @property
    def filter_box(self) -> FilterBox:
        return self.query_one("#filter", FilterBox)

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
    def about(self) -> AboutQuery:
        """The meaning query (`~TEXT`), the filter's own part."""
        return self.list_filter.about

    @property
    def filter_text(self) -> str:
        return self.list_filter.text

    @property
    def filtering(self) -> bool:
        """A filter or a meaning query narrows the view."""
        return self.list_filter.query is not None or self.about.active

    def open_cache(self) -> Worker[None]:
        """Read the cache in a worker (returned), as at the start."""
        return self.reading.open()

    def reload_cache(self, changed_ids: list[str]) -> Worker[Any]:
        """Read the cache again in a worker (returned), after papers were synced or added."""
        return self.sync.reload(changed_ids)

    def prepare_search(self, changed: list[str] | None, index: CacheIndex | None = None) -> None:
        self.reading.prepare_search(changed, index)

    # --- drawing the panes -----------------------------------------------------------------------

    def refresh_everything(self, *, keep: str | None = None) -> None:
        self.refresh_sidebar()
        self.refresh_chart()
        self.refresh_list(keep=keep)

    def refresh_sidebar(self) -> None:
        self.sidebar_entries = tuple(self.panes.sidebar_entries(for_you=self.triage.sidebar_detail()))

    def refresh_chart(self) -> None:
        topic, triage = self.view.topic, self.triage
        self.chart_data = self.panes.chart_data(
            for_you=triage.headline() if self.view == FOR_YOU else "",
            rising_unsynced=triage.rising_unsynced,
            rising_title=triage.rising_title(topic) if topic else "",
        )

    def sidebar_label(self, view: View) -> str:
        return self.panes.label(view)

    def empty_message(self) -> str:
        about, list_filter = self.about, self.list_filter
        return self.panes.empty_message(
            filtered=list_filter.text if list_filter.query is not None else None,
            about=about.empty_message() if about.active else None,
        )

    def refresh_list(self, *, keep: str | None = None) -> None:
        """Recompute which papers the list shows (view, unread only, filter), keeping the cursor."""
        if self.filtering:
            self.list_filter.run(self.list_filter.text, keep or self.paper_list.current)
            return
        # (sorted in a worker if need be; shown a message later, on the paper the cursor is on then)
        self.order.arrange(self.service.select(self.view, unread=self.unread_only), keep or KEEP_CURRENT)

    def _show_papers(self, ids: Sequence[str], keep: str | None) -> None:
        self.paper_list.empty_message = self.empty_message()
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
        if self.filtering:
            self.refresh_list(keep=None)
        else:
            self.order.arrange(self.service.select(self.view, unread=self.unread_only), None)

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

    @on(FilterBox.Changed, "#filter")
    def _filter_typed(self, event: FilterBox.Changed) -> None:
        self.list_filter.run(event.value.strip(), self.paper_list.current, delay=FILTER_DELAY)

    @on(FilterBox.Cleared)
    def _filter_cleared(self) -> None:
        self.list_filter.cleared()
        self.paper_list.focus()

    @on(FilterBox.Done)
    def _filter_done(self) -> None:
        self.paper_list.focus()

    # --- what the parts changed, and what their workers found: each to the part it belongs to ----------

    @on(Redraw)
    def _redraw(self, panes: Redraw) -> None:
        if panes.marks:
            self.marks_changed()  # the cards and the sidebar too
        elif panes.cards:
            self.paper_list.refresh_cards()
        if panes.sidebar and not panes.marks:
            self.refresh_sidebar()
        if panes.chart:
            self.refresh_chart()
        if panes.papers:
            self.refresh_list(keep=panes.keep)

    @on(PapersArranged)
    def _papers_arranged(self, message: PapersArranged) -> None:
        keep = self.paper_list.current if message.keep is KEEP_CURRENT else message.keep
        self._show_papers(message.ids, keep if isinstance(keep, str) else None)

    @on(CacheReading.Opened)
    def _cache_opened(self, message: CacheReading.Opened) -> None:
        self.catalog = message.catalog
        self.paper_list.empty_message = self.empty_message()
        self.reading.opened(message)
        self.call_after_refresh(message.painted.set)  # once the panes the part asked for are drawn

    @on(Triage.RisingRanked)
    def _rising_ranked(self, message: Triage.RisingRanked) -> None:
        self.rising_table.show(message.trends)
        self.triage.take_rising(message.trends)

    # --- actions -------------------------------------------------------------------------------------

    def action_next_unread(self) -> None:
        read = self.service.catalog.read
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
        self.sidebar_names.add_topic()

    def action_add_paper(self) -> None:
        from reader.app.screens.adding import PaperAdding  # holds no state between two additions

        PaperAdding(self).open()

    def action_add_watch(self) -> None:
        self.sidebar_names.add_watch()

    def action_rename_tag(self) -> None:
        self.sidebar_names.rename_tag()

    def action_delete(self) -> None:
        """d: the selected topic, watch or tag, after asking."""
        self.sidebar_names.delete()

    def action_filter(self) -> None:
        self.filter_box.open()

    def action_clear_filter(self) -> None:
        if self.filter_box.display:
            self.filter_box.action_clear()

    # --- export ----------------------------------------------------------------------------------------

    def export_selections(self) -> list[tuple[str, list[str]]]:
        starred = self.service.select(STARRED)
        shown = self.paper_list.ids
        where = self.sidebar_label(self.view) + (f", filter {self.filter_text}" if self.filtering else "")
        choices = [(plural(len(starred), "starred paper", thousands=True), list(starred))]
        if self.view != STARRED or self.filtering:
            choices.append((f"{plural(len(shown), 'paper', thousands=True)} shown ({where})", list(shown)))
        return choices
