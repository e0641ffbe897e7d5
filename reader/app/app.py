"""ReaderApp: the sidebar, the momentum chart and the paper list, over the local cache.

The app only draws what the store and the core logic hold: loading runs in a thread, sync in an
async worker, and nothing the user does waits on the network or on the paper cache."""

from __future__ import annotations

import dataclasses
import gc
import tomllib
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable

from textual import work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, OptionList, Static

from reader.config import Settings
from reader.core.bibtex import export as export_bibtex
from reader.core.library import Library
from reader.core.momentum import headline, total_window
from reader.core.query import Node, parse
from reader.demo import DemoSet, load_demo
from reader.errors import QueryError, ReaderError
from reader.loading import shard_texts
from reader.models import Paper, PaperIndex
from reader.store import Store
from reader.store.files import write_atomic
from reader.store.store import shard_of

from reader.app.screens.detail import DetailScreen
from reader.app.screens.dialogs import AddTopicDialog, ConfirmDialog, PathDialog
from reader.app.screens.help import HelpScreen, binding_rows
from reader.app.widgets.chart import MomentumChart
from reader.app.widgets.paper_list import PaperList
from reader.app.widgets.sidebar import ALL, STARRED, TOPIC_PREFIX, SidebarEntry, TopicSidebar

if TYPE_CHECKING:  # the network stack loads with the first sync, not at start-up
    from reader.arxiv.client import ArxivClient
    from reader.sync import SyncEvent, SyncReport

FILTER_DELAY = 0.15  # seconds of typing quiet before a filter runs
CARD_ABSTRACT_CHARS = 500  # what a card's two lines can show of an abstract, even on a wide terminal


def styles_path() -> Path:
    """The stylesheet: inside the installed package, or at the top of a source checkout."""
    installed = Path(__file__).resolve().parent.parent / "styles" / "reader.tcss"
    if installed.exists():
        return installed
    return Path(__file__).resolve().parent.parent.parent / "styles" / "reader.tcss"


class ReaderApp(App):
    CSS_PATH = styles_path()
    TITLE = "reader"
    BINDINGS = [
        Binding("q", "quit", "Quit", id="app.quit"),
        Binding("question_mark", "help", "Help", id="app.help"),
        Binding("s", "toggle_star", "Star", id="app.star"),
        Binding("r", "toggle_read", "Read", id="app.read"),
        Binding("n", "next_unread", "Next unread", id="app.next_unread"),
        Binding("u", "toggle_unread_only", "Unread only", show=False, id="app.unread_only"),
        # A priority binding runs before the keys typed after it are handed on, so they land in
        # the filter box rather than on the list's single-key actions.
        Binding("slash", "filter", "Filter", id="app.filter", priority=True),
        Binding("o", "open_abstract", "Browser", id="app.open"),
        Binding("p", "open_pdf", "PDF", show=False, id="app.pdf"),
        Binding("R", "sync", "Sync", id="app.sync"),
        Binding("e", "export", "Export", id="app.export"),
        Binding("y", "copy_bibtex", "Copy BibTeX", show=False, id="app.copy_bibtex"),
        Binding("a", "add_topic", "Add topic", show=False, id="app.add_topic"),
        Binding("d", "delete_topic", "Delete topic", show=False, id="app.delete_topic"),
    ]

    def __init__(
        self,
        store: Store,
        settings: Settings,
        *,
        client_factory: Callable[[], ArxivClient] | None = None,
        sync_on_start: bool = True,
    ):
        super().__init__()
        self.store = store
        self.settings = settings
        self.client_factory = client_factory or self._default_client
        self.sync_on_start = sync_on_start
        self.library = Library(PaperIndex())
        self.demo: DemoSet | None = None
        self.view = ALL
        self.unread_only = False
        self.filter_text = ""
        self._filter_query: Node | None = None
        self._filter_generation = 0
        self._filter_timer = None
        self._offline_told = False
        self.loaded = False  # every cached record is in memory
        self._topic_names: list[str] = []  # the sidebar's topics, re-read by refresh_everything
        self.syncing = False

    def _default_client(self) -> ArxivClient:
        from reader.sync import client_for

        return client_for(self.settings, on_notice=self._sync_notice)

    # --- layout ---

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            yield TopicSidebar(id="sidebar")
            with Vertical(id="content"):
                yield MomentumChart(id="chart")
                yield PaperList(self.library, id="papers")
                yield Input(placeholder="Filter: words, or a query like ti:agent AND cat:cs.LG   (Enter keeps it, Esc clears)", id="filter")
        yield Static("", id="status", markup=False)
        yield Footer()

    @property
    def paper_list(self) -> PaperList:
        return self.query_one("#papers", PaperList)

    @property
    def sidebar(self) -> TopicSidebar:
        return self.query_one("#sidebar", TopicSidebar)

    def on_mount(self) -> None:
        theme = self.store.setting("theme")
        if theme in self.available_themes:
            self.theme = theme
        self.theme_changed_signal.subscribe(self, self._remember_theme)
        self._apply_keymap()
        self.query_one("#filter", Input).display = False
        self.paper_list.empty_message = "Loading the cache…"
        self.paper_list.focus()
        self.open_cache()

    # Which app actions make sense on top of the main screen (the rest stay out of the footer).
    DETAIL_ACTIONS = {"quit", "help", "toggle_star", "toggle_read", "open_abstract", "open_pdf", "copy_bibtex", "export"}

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "filter" and isinstance(self.focused, Input):
            return False  # a "/" typed into a text box is a character (hep-th/9901001)
        if self.screen is self.screen_stack[0] or action in ("quit", "command_palette", "pop_screen"):
            return True
        return isinstance(self.screen, DetailScreen) and action in self.DETAIL_ACTIONS

    def on_resize(self) -> None:
        self.screen.set_class(self.size.height < 32, "-small")
        self.screen.set_class(self.size.width < 100, "-narrow")
        self.call_after_refresh(self.refresh_sidebar)  # its counts get shorter on a narrow screen

    def _remember_theme(self, theme) -> None:
        try:
            self.store.set_setting("theme", theme.name)
        except ReaderError as error:
            self.notify(f"Could not save the theme: {error}", severity="warning")

    def _apply_keymap(self) -> None:
        """Keys the user remapped in keymap.toml (binding id = "keys"), e.g. `"app.star" = "x"`."""
        path = self.store.data_dir / "keymap.toml"
        if not path.exists():
            return
        try:
            keymap = tomllib.loads(path.read_text("utf-8"))
            self.set_keymap({str(k): str(v) for k, v in keymap.items()})
        except (OSError, ValueError) as error:
            self.notify(f"keymap.toml ignored: {error}", severity="warning")

    # --- loading the cache ---

    def open_cache(self) -> None:
        """Index and marks first, here (~30 ms for 100,000 papers): counts, chart and list order
        are right on the first paint; the records follow from a thread, newest first."""
        try:
            index, marks = self.store.index(), self.store.marks()
            library = Library(index, marks.read, marks.starred)
        except ReaderError as error:
            self.notify(f"Cannot read the cache: {error}", severity="error", timeout=30)
            library = Library(PaperIndex())
        self._library_ready(library)
        self._show_store_warnings()
        if self.demo is None:
            self.load_records()
        else:
            self.loaded = True

    @work(thread=True, exclusive=True, group="load")
    def load_records(self, shards: list[str] | None = None) -> None:
        """Records for the cards, shard by shard, newest first, with their search texts built
        here rather than at the first filter. Only the head of each abstract stays in memory
        (the detail view reads the whole record): 100,000 papers fit in a few hundred MB."""
        for shard in self.store.shards() if shards is None else shards:
            try:
                papers = self.store.load_papers([shard])
            except ReaderError as error:
                self.call_from_thread(self.notify, str(error), severity="error")
                continue
            texts = shard_texts(self.store, shard, papers)
            for paper in papers.values():
                paper.abstract = paper.abstract[:CARD_ABSTRACT_CHARS]
                if paper.updated == paper.published:
                    paper.updated = paper.published  # one string, not two equal ones
            self.call_from_thread(self._papers_loaded, papers.values(), texts, shard)
        self.call_from_thread(self._cache_loaded)

    def full_paper(self, paper_id: str) -> Paper | None:
        """The whole record (the library keeps card-sized abstracts)."""
        paper = self.library.papers.get(paper_id)
        if paper is None or paper.demo:
            return paper
        try:
            return self.store.load_papers([shard_of(paper_id)]).get(paper_id, paper)
        except ReaderError:
            return paper

    def _library_ready(self, library: Library) -> None:
        if not library.index:
            library = self._demo_library()
        self.library = library
        self.paper_list.set_library(library)
        self.paper_list.empty_message = "No papers here yet: press R to sync, a to add a topic"
        self.refresh_everything()
        if self.sync_on_start and self._sync_due():
            self.action_sync()

    def _demo_library(self) -> Library:
        self.demo = load_demo()
        library = Library(self.demo.index)
        library.add_papers(self.demo.papers.values())
        self._set_status(f"Demo set: 30 papers of the '{self.demo.topic}' topic page, Sep 2026 · R syncs your topics")
        return library

    def _papers_loaded(self, papers: Iterable, texts: dict, shard: str) -> None:
        self.library.add_papers(papers, texts, group=shard)
        self.paper_list.refresh_cards()
        if self.filter_text:
            self.refresh_list()

    def _cache_loaded(self) -> None:
        self.loaded = True
        # The records live as long as the app: keep the garbage collector from walking them
        # again and again (each full pass over 100,000 papers would stall the screen).
        gc.freeze()
        self._show_store_warnings()

    def _show_store_warnings(self) -> None:
        """What the store repaired (a damaged file moved aside, user state restored)."""
        for warning in self.store.warnings:
            self.notify(warning, title="Cache repaired", severity="warning", timeout=20)
        self.store.warnings.clear()

    def _sync_due(self) -> bool:
        topics = self.store.topics()
        if not topics:
            return False
        limit = datetime.now(timezone.utc) - timedelta(hours=self.settings.sync_interval_hours)
        for topic in topics:
            last = self.store.last_sync(topic.name)
            if last is None or datetime.fromisoformat(last.replace("Z", "+00:00")) < limit:
                return True
        return False

    # --- drawing the three panes ---

    def refresh_everything(self, *, keep: str | None = None) -> None:
        try:
            self._topic_names = [t.name for t in self.store.topics()]  # they change only here
        except ReaderError as error:
            self.notify(f"Cannot read the topics: {error}", severity="error")
        self.refresh_sidebar()
        self.refresh_chart()
        self.refresh_list(keep=keep)

    def refresh_sidebar(self) -> None:
        library = self.library
        all_label = "All papers (demo)" if self.demo else "All papers"
        entries = [
            SidebarEntry(ALL, all_label, *library.counts()),
            SidebarEntry(STARRED, "Starred", *library.counts(starred=True)),
        ]
        # From memory: this runs on every star and read toggle, and user.json holds every mark.
        for name in self._topic_names:
            entries.append(SidebarEntry(TOPIC_PREFIX + name, name, *library.counts(name)))
        self.sidebar.set_entries(entries, self.view)

    @property
    def view_topic(self) -> str | None:
        return self.view.removeprefix(TOPIC_PREFIX) if self.view.startswith(TOPIC_PREFIX) else None

    def refresh_chart(self) -> None:
        chart = self.query_one("#chart", MomentumChart)
        topic = self.view_topic
        name = topic or ("Starred" if self.view == STARRED else "All papers")
        if self.view == STARRED:
            chart.show(None, "Starred", f"{self.library.counts(starred=True)[0]:,} starred papers")
            return
        if self.demo is not None:
            m = self.library.momentum(self.demo.as_of, topic=topic)
            figures = self.demo.headline_figures
            if topic in (None, self.demo.topic):
                # The page's own figures: the demo holds only its 30 newest papers.
                m = dataclasses.replace(m, last4=figures["last4"], change_pct=figures["change_pct"], share_pct=figures["share_pct"])
            chart.show(m, f"Demo · {topic or self.demo.topic}", headline(m))
            return
        today = self.settings.today()
        total = self.store.cached_total(total_window(today))
        m = self.library.momentum(today, topic=topic, total_new_last4=total)
        chart.show(m, name, headline(m))

    def refresh_list(self, *, keep: str | None = None) -> None:
        """Recompute which papers the list shows (view, unread only, filter), keeping the cursor."""
        keep = keep or self.paper_list.current
        if self._filter_query is not None:
            self._filter_generation += 1
            self.run_filter(self._filter_generation, keep)
            return
        self.paper_list.show(self._select(), keep=keep)

    def _select(self, query: Node | None = None) -> list[str]:
        return self.library.select(
            topic=self.view_topic, starred=self.view == STARRED, unread=self.unread_only, query=query
        )

    @work(thread=True, exclusive=True, group="filter")
    def run_filter(self, generation: int, keep: str | None) -> None:
        ids = self._select(self._filter_query)
        self.call_from_thread(self._filtered, generation, ids, keep)

    def _filtered(self, generation: int, ids: list[str], keep: str | None) -> None:
        if generation != self._filter_generation:
            return  # a newer filter is on its way
        self.paper_list.show(ids, keep=keep)
        note = "" if self.loaded else " (still loading the cache)"
        self.query_one("#filter", Input).border_subtitle = f"{len(ids):,} match{'es' if len(ids) != 1 else ''}{note}"

    # --- events from the panes ---

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_list.id == "sidebar" and event.option.id and event.option.id != self.view:
            self.view = event.option.id
            self.refresh_chart()
            self.paper_list.show(self._select(), keep=None) if self._filter_query is None else self.refresh_list()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list.id == "sidebar":
            self.paper_list.focus()

    def on_paper_list_opened(self, event: PaperList.Opened) -> None:
        self._set_marks(event.paper_id, read=True)
        self.push_screen(DetailScreen(event.paper_id))

    # --- actions on the current paper ---

    def current_paper(self) -> str | None:
        if isinstance(self.screen, DetailScreen):
            return self.screen.paper_id
        return self.paper_list.current

    def _set_marks(self, paper_id: str, *, read: bool | None = None, starred: bool | None = None) -> None:
        paper = self.library.papers.get(paper_id)
        if paper is None or not paper.demo:  # demo papers have no arXiv id: their marks live in memory
            try:
                self.store.set_marks([paper_id], read=read, starred=starred)
            except ReaderError as error:
                self.notify(f"Not saved: {error}", severity="error")
                return
        self.library.set_marks(paper_id, read=read, starred=starred)
        self.paper_list.refresh()
        self.refresh_sidebar()
        if isinstance(self.screen, DetailScreen):
            self.screen.refresh_detail()

    def action_toggle_star(self) -> None:
        if (paper_id := self.current_paper()) is not None:
            self._set_marks(paper_id, starred=paper_id not in self.library.starred)

    def action_toggle_read(self) -> None:
        if (paper_id := self.current_paper()) is not None:
            self._set_marks(paper_id, read=paper_id not in self.library.read)

    def action_next_unread(self) -> None:
        if not self.paper_list.next_matching(lambda pid: pid not in self.library.read):
            self.notify("No unread papers here.")

    def action_toggle_unread_only(self) -> None:
        self.unread_only = not self.unread_only
        self.refresh_list()
        self.notify("Showing unread papers only." if self.unread_only else "Showing read and unread papers.")

    def _open(self, kind: str) -> None:
        paper_id = self.current_paper()
        paper = self.library.papers.get(paper_id) if paper_id else None
        if paper is None:
            return
        url = paper.abs_url if kind == "abs" else paper.pdf_url
        if not url:
            self.notify("This demo paper has no PDF link: open its search page with o.", severity="warning")
            return
        self.open_url(url)
        self._set_marks(paper.id, read=True)

    def action_open_abstract(self) -> None:
        self._open("abs")

    def action_open_pdf(self) -> None:
        self._open("pdf")

    # --- filter ---

    def action_filter(self) -> None:
        box = self.query_one("#filter", Input)
        box.display = True
        self.screen.set_focus(box)

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id != "filter":
            return
        if self._filter_timer is not None:
            self._filter_timer.stop()
        # The box's own timer: it stops with the box, so quitting mid-typing never fires it on a
        # screen already taken down.
        self._filter_timer = event.input.set_timer(FILTER_DELAY, lambda: self._apply_filter(event.value))

    def _apply_filter(self, text: str) -> None:
        box = self.query_one("#filter", Input)
        text = text.strip()
        if not text:
            self.filter_text, self._filter_query = "", None
            box.border_subtitle = ""
            self.refresh_list()
            return
        try:
            query = parse(text, implicit_and=True)
        except QueryError as error:
            where = f" at column {error.position + 1}" if error.position is not None else ""
            box.border_subtitle = f"{error}{where}"
            return
        self.filter_text, self._filter_query = text, query
        self.refresh_list()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "filter":
            self.paper_list.focus()

    def on_key(self, event) -> None:
        box = self.query_one("#filter", Input)
        if event.key == "escape" and box.display and self.screen is self.screen_stack[0]:
            event.stop()
            box.value = ""
            box.display = False
            self._apply_filter("")
            self.paper_list.focus()

    # --- sync ---

    def action_sync(self) -> None:
        if self.syncing:
            self.notify("A sync is already running.")
            return
        topics = self.store.topics()
        if not topics:
            self.notify("No topics to sync: add one with a.", severity="warning")
            return
        self.run_sync(topics)

    @work(exclusive=True, group="sync")
    async def run_sync(self, topics) -> None:
        from reader.sync import Syncer

        self.syncing = True
        self._set_status(f"Syncing {len(topics)} topic{'s' if len(topics) != 1 else ''}…")
        report: SyncReport | None = None
        try:
            async with self.client_factory() as client:
                syncer = Syncer(
                    self.store, client, today=self.settings.today(), horizon_weeks=self.settings.sync_weeks,
                    on_event=self._sync_event,
                )
                report = await syncer.run(topics)
        except ReaderError as error:
            self.notify(f"Sync failed: {error}", severity="error", timeout=15)
        finally:
            self.syncing = False
        if report is not None:
            self._sync_finished(report)

    def _sync_event(self, event: SyncEvent) -> None:
        self._set_status(event.message[:1].upper() + event.message[1:])

    def _sync_notice(self, message: str) -> None:
        self._set_status(message)

    def _sync_finished(self, report: SyncReport) -> None:
        failed = report.failed
        offline = report.offline
        if offline:
            if not self._offline_told:
                self.notify("Offline: arXiv cannot be reached. Showing the cached papers.", severity="warning", timeout=10)
                self._offline_told = True
        else:
            for result in failed:
                self.notify(f"{result.topic}: {result.error}", severity="error", timeout=15)
        summary = f"Synced: {report.new:,} new, {report.updated:,} updated"
        if failed:
            summary += f"; {len(failed)} topic{'s' if len(failed) != 1 else ''} failed"
        self._set_status("Offline: showing the cache." if offline else summary)
        if report.changed_ids or self.demo is not None:
            self.reload_after_sync(report.changed_ids)

    def reload_after_sync(self, changed_ids: list[str]) -> None:
        keep = self.paper_list.current
        try:
            index = self.store.index()
        except ReaderError as error:
            self.notify(f"Cannot read the cache: {error}", severity="error")
            return
        if self.demo is not None:
            if not index:
                return
            self.demo = None  # real papers arrived: leave the demo for the real cache
            self.open_cache()
            return
        self.library.reindex(index)
        self.refresh_everything(keep=keep)
        self.load_records(sorted({shard_of(pid) for pid in changed_ids}))

    def _set_status(self, message: str) -> None:
        self.query_one("#status", Static).update(message)

    # --- BibTeX ---

    def action_export(self) -> None:
        starred = [self.library.papers[pid] for pid in self.library.select(starred=True) if pid in self.library.papers]
        if not starred:
            self.notify("Nothing to export: star papers with s first.", severity="warning")
            return
        default = self.store.setting("export_path") or str(Path.home() / "starred.bib")

        def chosen(path: str | None) -> None:
            if path is None:
                return
            text = export_bibtex(starred)
            target = Path(path).expanduser()
            try:
                write_atomic(target, text.encode("utf-8"))
                self.store.set_setting("export_path", str(target))
            except ReaderError as error:
                self.notify(f"Export failed: {error}", severity="error", timeout=15)
                return
            count = text.count("@misc{")
            self.notify(f"Wrote {count} entr{'ies' if count != 1 else 'y'} to {target}")

        self.push_screen(PathDialog(f"Export {len(starred)} starred paper{'s' if len(starred) != 1 else ''} to BibTeX", default), chosen)

    def action_copy_bibtex(self) -> None:
        paper = self.library.papers.get(self.current_paper() or "")
        if paper is None:
            return
        if paper.demo:
            self.notify("Demo papers have no arXiv id to cite.", severity="warning")
            return
        text = export_bibtex([paper])
        self.copy_to_clipboard(text)
        self.notify(f"Copied {text.split(',', 1)[0].removeprefix('@misc{')} to the clipboard.")

    # --- topics ---

    def action_add_topic(self) -> None:
        def added(result: tuple[str, str] | None) -> None:
            if result is None:
                return
            name, query = result
            try:
                self.store.add_topic(name, query)
            except ReaderError as error:
                self.notify(str(error), severity="error")
                return
            self.view = TOPIC_PREFIX + name
            self.refresh_everything()
            self.notify(f"Added '{name}'. Syncing it now.")
            if not self.syncing:
                self.run_sync([self.store.topic(name)])

        self.push_screen(AddTopicDialog([t.name for t in self.store.topics()]), added)

    def action_delete_topic(self) -> None:
        topic = self.view_topic
        if topic is None:
            self.notify("Select a topic in the sidebar first.", severity="warning")
            return

        def answered(yes: bool | None) -> None:
            if not yes:
                return
            try:
                self.store.remove_topic(topic)
            except ReaderError as error:
                self.notify(str(error), severity="error")
                return
            self.view = ALL
            if self.demo is None:
                self.library.reindex(self.store.index())
            self.refresh_everything()
            self.notify(f"Deleted '{topic}'. Its papers, stars and read marks stay in the cache.")

        self.push_screen(
            ConfirmDialog(f"Delete the topic '{topic}'? Papers, stars and read marks are kept.", yes="Delete"), answered
        )

    # --- help and the command palette ---

    def action_help(self) -> None:
        self.push_screen(HelpScreen(self.help_sections()))

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        return [
            ("Papers", binding_rows(self, PaperList.BINDINGS)),
            ("Actions", binding_rows(self, self.BINDINGS)),
            ("Detail view", binding_rows(self, DetailScreen.BINDINGS)),
        ]

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for binding in self.BINDINGS:
            if binding.action not in ("quit",):
                yield SystemCommand(binding.description, f"key: {binding.key}", lambda a=binding.action: self.run_action(a))
        yield SystemCommand("Open paper", "key: enter", self.paper_list.action_open)
        yield SystemCommand("Clear filter", "Show every paper of the view again", lambda: self._apply_filter(""))


def run_app(store: Store, settings: Settings) -> int:
    ReaderApp(store, settings).run()
    return 0
