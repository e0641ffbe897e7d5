"""What the main screen does with its parts' messages: each is handed to the part it belongs to
(a worker's result to the part that started it; what a part did to the parts that follow it). The
table in docs/architecture.md lists them; MainScreen (main.py) holds the parts and draws."""

from __future__ import annotations

from textual import on
from textual.screen import Screen

from reader.app.screens.cache_reading import CacheReading
from reader.app.screens.catchup import CatchUp, ListOrder
from reader.app.screens.detail_opening import DetailOpening
from reader.app.screens.list_filter import ListFilter
from reader.app.screens.paper_record import ListPaperRead
from reader.app.screens.part import OutsideTaken, PaperAdded, SyncWanted, TopicRemoved, TriageStale
from reader.app.screens.sidebar_names import SidebarNames
from reader.app.screens.sync import Sync
from reader.app.screens.triage import Triage
from reader.app.widgets.outside_watch import OutsideWatch


class PartMessages(Screen):
    """The main screen's handlers that hand a message to one of its parts (MainScreen makes them)."""

    reading: CacheReading
    list_filter: ListFilter
    triage: Triage
    sync: Sync
    sidebar_names: SidebarNames
    details: DetailOpening
    order: ListOrder
    catchup: CatchUp

    @on(OutsideWatch.Changed)
    def _outside_changed(self, message: OutsideWatch.Changed) -> None:
        self.reading.take_outside(message.update)

    @on(CacheReading.Counted)
    def _cache_counted(self, message: CacheReading.Counted) -> None:
        self.reading.counted(message)

    @on(CacheReading.SearchPrepared)
    def _search_prepared(self, message: CacheReading.SearchPrepared) -> None:
        self.reading.search_prepared(message)
        self.order.search_prepared()

    @on(ListFilter.Answered)
    def _filter_answered(self, message: ListFilter.Answered) -> None:
        self.list_filter.take(message)

    @on(ListFilter.Matched)
    def _filter_matched(self, message: ListFilter.Matched) -> None:
        if message is not self.list_filter.matched:
            return  # a newer filter started (the view changed) or the box was cleared meanwhile
        self.order.arrange(message.ids, message.keep, best_first=message.best_first)

    @on(ListOrder.Sorted)
    def _list_sorted(self, message: ListOrder.Sorted) -> None:
        self.order.take_sorted(message)

    @on(CatchUp.UnreadFound)
    def _unread_found(self, message: CatchUp.UnreadFound) -> None:
        self.catchup.ask(message.unread)

    @on(ListPaperRead)
    def _paper_read_for_detail(self, message: ListPaperRead) -> None:
        self.details.show(message)

    @on(Sync.CacheRead)
    def _cache_read_after_sync(self, message: Sync.CacheRead) -> None:
        self.sync.take_update(message.update, message.changed_ids)

    @on(Sync.PapersArrived)
    def _papers_arrived(self) -> None:
        self.sync.leave_demo()

    @on(Sync.OtherSyncEnded)
    def _other_sync_ended(self) -> None:
        self.sync.other_sync_ended()

    @on(Triage.SetsRead)
    def _triage_read(self, message: Triage.SetsRead) -> None:
        self.triage.take_sets(message.sets)

    @on(Triage.Ranked)
    def _ranked(self, message: Triage.Ranked) -> None:
        self.triage.take_ranking(message.ranking, message.version, message.left)

    @on(Triage.RankingFailed)
    def _ranking_failed(self, message: Triage.RankingFailed) -> None:
        self.triage.ranking_failed(message.problem)

    @on(Triage.RisingTermsFound)
    def _rising_terms_found(self, message: Triage.RisingTermsFound) -> None:
        self.triage.take_rising_terms(message.topic, message.terms)

    # --- what a part did that another follows ------------------------------------------------------------

    @on(TopicRemoved)
    def _topic_removed(self, message: TopicRemoved) -> None:
        self.triage.topic_removed(message.name)

    @on(SyncWanted)
    def _sync_wanted(self, message: SyncWanted) -> None:
        if message.topics is None:
            self.sync.sync_all()
        else:
            self.sync.start(message.topics)

    @on(TriageStale)
    def _triage_stale(self, message: TriageStale) -> None:
        self.triage.reload(visit=message.visit)

    @on(PaperAdded)
    def _paper_added(self, message: PaperAdded) -> None:
        self.details.open(message.paper_id, message.ids)

    @on(OutsideTaken)
    def _outside_taken(self, message: OutsideTaken) -> None:
        self.triage.changed_elsewhere()
        self.details.changed_elsewhere(message.papers_or_library)

    @on(SidebarNames.TopicDeleted)
    def _topic_deleted(self, message: SidebarNames.TopicDeleted) -> None:
        self.sidebar_names.topic_deleted(message.name, message.update)

    @on(SidebarNames.WatchRemoved)
    def _watch_removed(self, message: SidebarNames.WatchRemoved) -> None:
        self.sidebar_names.watch_removed(message.name)

    @on(SidebarNames.TagRenamed)
    def _tag_renamed(self, message: SidebarNames.TagRenamed) -> None:
        self.sidebar_names.tag_renamed(message.old, message.new, message.merged)

    @on(SidebarNames.TagDeleted)
    def _tag_deleted(self, message: SidebarNames.TagDeleted) -> None:
        self.sidebar_names.tag_deleted(message.name, message.count)
