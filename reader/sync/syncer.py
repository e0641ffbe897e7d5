"""Sync topics from arXiv into the store: newest first, page by page, down to the horizon (first
sync) or to the spans of time the cache already holds whole (incremental; see _Run). Used by the
CLI and the app alike."""

from __future__ import annotations

import asyncio
import gc
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta

from reader.arxiv.client import ArxivClient
from reader.arxiv.parse import AnnouncementFeed, FeedPage
from reader.config import Settings
from reader.core import coverage, momentum
from reader.core.text import plural
from reader.errors import ArxivError, ArxivUnreachableError, ReaderError
from reader.models import Paper
from reader.store import Store, Topic
from reader.store.shard_features import FeatureKeeper
from reader.sync.search_keeper import SearchKeeper
from reader.sync.types import SyncEvent, SyncReport, TopicResult, client_options

PAGE_SIZE = 200  # the first page of a sync: most syncs need no more
BULK_PAGE_SIZE = 1000  # later pages (arXiv serves up to 2,000): fewer requests for a first sync
SAVE_EVERY = 5000  # papers held in memory before they are written (each write rewrites the index)
ARXIV_RESULT_CAP = 10_000  # arXiv's search backend serves no result past this position of a query
TOPIC_CATEGORIES = 3  # a topic's most frequent primary categories, whose feeds announce new versions
ID_BATCH = 100  # ids per id_list request
# Papers can be announced a few days after their submission date: an incremental sync looks
# this far behind the last sync before it trusts that it has caught up.
CATCH_UP_MARGIN = timedelta(days=7)
# arXiv held 1,999,183 papers at the end of 2021 and gains fewer than 50,000 a month: a total
# above what that allows by a date is a server's lie (papers_arxiv_could_hold).
ARXIV_PAPERS_END_2021 = 2_000_000
ARXIV_PAPERS_A_MONTH = 50_000


def papers_arxiv_could_hold(today: date) -> int:
    """More papers than arXiv holds on `today`."""
    months = max(0, (today.year - 2022) * 12 + today.month)
    return ARXIV_PAPERS_END_2021 + ARXIV_PAPERS_A_MONTH * months


@dataclass(slots=True)
class FeedProblems:
    """Entries skipped and category terms removed while reading a topic's pages, told once as a
    note: a malformed entry costs only itself, never its page or its topic."""

    skipped: list[str] = field(default_factory=list)
    removed_categories: list[str] = field(default_factory=list)

    def add(self, page: FeedPage | AnnouncementFeed) -> None:
        self.skipped += page.skipped
        self.removed_categories += page.removed_categories

    def note(self) -> str | None:
        parts = []
        if self.skipped:
            count = len(self.skipped)
            more = f" (and {count - 1:,} more)" if count > 1 else ""
            parts.append(f"{plural(count, 'entry', 'entries', thousands=True)} skipped: {self.skipped[0]}{more}")
        if self.removed_categories:
            terms = list(dict.fromkeys(self.removed_categories))
            shown = ", ".join(terms[:3]) + (f" and {len(terms) - 3} more" if len(terms) > 3 else "")
            parts.append(f"categories that are not arXiv categories removed: {shown}")
        return "; ".join(parts) or None


def client_for(settings: Settings, on_notice: Callable[[str], None] | None = None) -> ArxivClient:
    return ArxivClient(client_options(settings), on_notice=on_notice)


class Syncer:
    def __init__(
        self,
        store: Store,
        client: ArxivClient,
        *,
        today: date,
        horizon_weeks: int = 16,
        on_event: Callable[[SyncEvent], None] | None = None,
    ):
        self.store = store
        self.client = client
        self.today = today
        self.horizon_weeks = horizon_weeks
        self.on_event = on_event or (lambda event: None)
        # Each shard saved leaves For you's features beside it: the first ranking reads them.
        self.features = FeatureKeeper(store)
        # And the search index, a batch of shards at a time, in child processes.
        self.search = SearchKeeper(store)
        # The run so far: when it is cancelled (Ctrl+C, the app quitting), the topics it finished,
        # and the one it stopped in (what arrived before the cancellation is saved).
        self.report = SyncReport()
        self.interrupted: TopicResult | None = None

    async def run(self, topics: list[Topic]) -> SyncReport:
        """Sync the topics one after the other. StoreLockedError when another sync is running."""
        with self.store.sync_lock():
            try:
                report = await self._run(topics)
                # Once, at the end: index.json written whole when the saves appended to its log.
                await asyncio.to_thread(self.store.settle_index)
            finally:  # (failed or cancelled too: it ends the index's build processes)
                await asyncio.to_thread(self.search.wait)  # the announcements' newer versions
            return report

    def on_shard(self, shard: str, docs: dict[str, dict], papers: list[Paper], before: os.stat_result | None) -> None:
        """What `Store.save_papers` tells of each shard written: its derived indexes follow."""
        self.features.on_shard(shard, docs, papers, before)
        self.search.on_shard(shard)

    async def _run(self, topics: list[Topic]) -> SyncReport:
        report = self.report = SyncReport()
        for topic in topics:
            if report.topics and report.topics[-1].unreachable:  # offline: no point trying the rest
                report.topics.append(TopicResult(topic.name, error=report.topics[-1].error, unreachable=True))
                continue
            report.topics.append(await self.sync_topic(topic))
        if all(t.error for t in report.topics) and report.topics:
            return report
        categories = await asyncio.to_thread(self.store.sync_file.synced_categories)
        report.versions = await self.refresh_versions(categories)
        try:
            report.total_new_last4 = await self.total_new_last4()
        except ReaderError as error:
            report.total_error = f"could not count all new arXiv papers: {error}"
        return report

    async def sync_topic(self, topic: Topic) -> TopicResult:
        result = TopicResult(topic.name)
        requests_before = self.client.requests_made
        self.on_event(SyncEvent(topic.name, f"syncing {topic.name}"))
        run = _Run(self, topic, result)
        try:
            await run.fetch()
            await run.save()
            categories = Counter(p.primary_category for p in run.fetched_sample)
            await asyncio.to_thread(
                self.store.sync_file.record_sync, topic.name, topic.query, [c for c, _ in categories.most_common(TOPIC_CATEGORIES)]
            )
        except ReaderError as error:
            try:
                await run.save()  # keep what arrived before the failure, and how far it reached
            except ReaderError:
                pass
            result.error = str(error)
            result.unreachable = isinstance(error, ArxivUnreachableError)
            self.on_event(SyncEvent(topic.name, f"{topic.name}: {error}"))
        except asyncio.CancelledError:
            self.interrupted = result
            if not run.saving:  # (a save cut short finishes in its thread; its progress is not recorded)
                try:
                    await run.save()  # keep what arrived, and how far it reached: the next sync goes on from there
                except ReaderError:
                    pass
            raise
        finally:
            await asyncio.to_thread(self.features.wait)  # every shard saved has its features beside it
            await asyncio.to_thread(self.search.wait)  # and is in the search index
            gc.unfreeze()  # syncs run in processes of their own (the CLI, the app's sync child)
        result.requests = self.client.requests_made - requests_before
        result.note = "; ".join(n for n in (run.problems.note(), result.note) if n) or None
        return result

    async def refresh_versions(self, categories: list[str]) -> TopicResult:
        """Newer versions of cached papers, as today's announcement feeds of the topics' main
        categories list them. A topic's own sync goes by first submission, so a replacement of an
        older paper would never reach it; the feeds announce replacements every day."""
        result = TopicResult("announcements")
        if not categories:
            return result
        self.on_event(SyncEvent(None, "checking today's announcements for new versions"))
        try:
            feed = await self.client.announcements(categories)
            problems = FeedProblems()
            problems.add(feed)
            result.note = problems.note()
            index = await asyncio.to_thread(self.store.index)
            stale = []
            for item in feed.items:
                position = index.position(item.id)
                if position is not None and index.versions[position] < item.version:
                    stale.append(item.id)
            for start in range(0, len(stale), ID_BATCH):
                page = await self.client.fetch_ids(stale[start : start + ID_BATCH])
                result.fetched += len(page.papers)
                problems.add(page)
                result.note = problems.note()
                saved = await asyncio.to_thread(self.store.save_papers, page.papers, None, on_shard=self.on_shard)
                result.updated += saved.updated
                result.changed_ids += saved.changed_ids
        except ReaderError as error:
            result.error = f"announcement feeds: {error}"
        await asyncio.to_thread(self.features.wait)
        return result

    async def total_new_last4(self) -> int:
        """All new arXiv submissions in the last four weeks, asked once a day and cached."""
        window = momentum.total_window(self.today)
        cached = await asyncio.to_thread(self.store.sync_file.cached_total, window)
        if cached is not None:
            return cached
        first, last = window.split("-")
        count = await self.client.count(f"submittedDate:[{first}0000 TO {last}2359]")
        if count > papers_arxiv_could_hold(self.today):
            raise ArxivError("arXiv claimed more new papers than it holds")
        await asyncio.to_thread(self.store.sync_file.cache_total, window, count)
        return count


class _Run:
    """One topic's fetch: the horizon `[lo, top]` as one `submittedDate` window ANDed with the
    query, newest first. Where arXiv stops serving (ARXIV_RESULT_CAP), the rest of the window
    becomes a window of its own, ending at the oldest paper reached; where the pages reach a span
    the cache already holds whole, the next window starts below that span. Every save records
    how far down the run is complete, so an interrupted run resumes where it stopped.

    Progress is what the run has not received before: a page of entries that all came already
    (a server looping over its results) stops the topic at once, with the papers received kept.
    A total above what arXiv could hold is not believed: the window then ends at an empty page."""

    def __init__(self, syncer: Syncer, topic: Topic, result: TopicResult):
        self.syncer, self.topic, self.result = syncer, topic, result
        self.problems = FeedProblems()
        self.pending: list[Paper] = []
        self.fetched_sample: list[Paper] = []  # where the topic's papers live, for the announcement feeds
        self.lo = coverage.day_start(syncer.today - timedelta(weeks=syncer.horizon_weeks))
        self.top = coverage.day_end(syncer.today + timedelta(days=1))  # a day ahead: clocks and zones differ
        self.base: list[coverage.Span] = []  # spans held whole before this run
        self.run_low: str | None = None  # the run holds [run_low, top] whole once set
        self.known: dict[str, int] = {}
        self.received: set[str] = set()  # ids of the papers and unreadable entries served so far
        self.lying_total = False  # a window's total was more than arXiv could hold
        self.saving = False

    async def fetch(self) -> None:  # noqa: C901 (the walk over windows of pages: where the next page starts is one decision)
        syncer, topic, result = self.syncer, self.topic, self.result
        state = await asyncio.to_thread(syncer.store.sync_file.sync_state, topic.name)
        if state.query == topic.query:  # a changed query makes what was fetched for the old one moot
            self.base = coverage.trusted_spans(state.spans, state.spans_fetched, CATCH_UP_MARGIN)
        hi, start, window_total = self.top, 0, None
        known: dict[str, int] | None = None
        while True:
            size = min(PAGE_SIZE if not result.fetched else BULK_PAGE_SIZE, ARXIV_RESULT_CAP - start)
            page = await syncer.client.search(
                window_query(topic.query, self.lo, hi), start=start, max_results=size, expected_total=window_total
            )
            if known is None:  # read once arXiv answers: an unreachable arXiv costs no index read
                known = self.known = await asyncio.to_thread(self._known_versions)
            if start == 0:  # a window's first page: its total says where the window ends
                window_total = self._believable(page.total_results)
                if hi == self.top:
                    result.arxiv_total = window_total
            fresh = self._take(page)
            # What is alive between two pages (the papers waiting to be saved, the client, the
            # index) stays until the run ends: the collector's full passes skip it from now on.
            # Each held the GIL ~40 ms, walking some 30,000 papers and authors, and the event
            # loop stood still meanwhile. Frozen objects are still freed when no longer used
            # (reference counts); sync_topic unfreezes them at the end, and a cycle among them
            # is collected then.
            gc.freeze()
            if page.entries and not fresh:
                self._stop_looping(start)
            self._tell_progress()
            start += page.entries
            if not page.entries or (window_total is not None and start >= window_total):
                self.run_low = self.lo  # the window is complete: so is the run
                break
            if not page.papers:  # every entry skipped: nothing to tell where the page stands
                continue
            oldest = min(_minute_of(p.published) for p in page.papers)
            self.run_low = coverage.next_minute(oldest)  # the oldest minute may go on past the page
            held = next((s for s in self.base if s[0] < self.run_low <= coverage.next_minute(s[1])), None)
            if held is not None:  # reached a span already held whole: skip it
                self.run_low = held[0]
                if held[0] <= self.lo:
                    break
                hi, start, window_total = held[0], 0, None
            elif start >= ARXIV_RESULT_CAP:  # arXiv serves no further: the rest is a window of its own
                if oldest >= hi:
                    result.note = f"more than {ARXIV_RESULT_CAP:,} papers in one minute; stopped there"
                    break
                hi, start, window_total = oldest, 0, None
            if len(self.pending) >= SAVE_EVERY:
                await self.save()

    def _known_versions(self) -> dict[str, int]:
        """The cached version of each paper the topic's query returned before (in a worker: a
        loop over the whole index)."""
        index = self.syncer.store.index()
        name = self.topic.name
        return dict(zip(index.in_topic(name, index.ids), index.in_topic(name, index.versions)))

    def _believable(self, total: int) -> int | None:
        """A window's totalResults, or None when arXiv could not hold that many papers."""
        if total > papers_arxiv_could_hold(self.syncer.today):
            self.lying_total = True
            return None
        return total

    def _take(self, page: FeedPage) -> int:
        """Keeps the page's papers this run has not received before; how many entries were new."""
        result = self.result
        papers = []
        for paper in page.papers:
            if paper.id not in self.received:
                self.received.add(paper.id)
                papers.append(paper)
        # Unreadable entries by the <id> they carry, marked so none passes for a paper's id.
        unreadable = {f"unreadable {key}" for key in page.skipped_ids} - self.received
        self.received |= unreadable
        result.fetched += len(papers)
        self.problems.add(page)
        if len(self.fetched_sample) < 1000:
            self.fetched_sample.extend(papers)
        self.pending.extend(p for p in papers if self.known.get(p.id) != p.version)
        return len(papers) + len(unreadable)

    def _tell_progress(self) -> None:
        result = self.result
        expected = result.arxiv_total if not self.base else None  # an incremental sync stops early
        self.syncer.on_event(SyncEvent(self.topic.name, f"{self.topic.name}: {result.fetched:,} fetched", result.fetched, expected))

    def _stop_looping(self, start: int) -> None:
        """A page brought nothing new: the server repeats itself, and asking on would only bring
        the same again. ArxivError, told once; what arrived is saved, and only as far as the pages
        before went (sync_topic)."""
        self.result.arxiv_total = None
        claim = ", and claimed more results than arXiv holds" if self.lying_total else ""
        raise ArxivError(f"arXiv sent only papers it had already sent, at result {start + 1:,}{claim}; the topic stopped there")

    async def save(self) -> None:
        """Save the pending papers, then record how far the run is complete (never before)."""
        store, result = self.syncer.store, self.result
        self.saving = True  # stays set when the save is cancelled midway (its thread goes on writing)
        if self.pending:
            batch = list(self.pending)
            self.pending.clear()
            self.syncer.features.expect(len(batch))
            saved = await asyncio.to_thread(store.save_papers, batch, self.topic.name, on_shard=self.syncer.on_shard)
            result.new += saved.new
            result.updated += saved.updated
            result.changed_ids += saved.changed_ids
        if self.run_low is not None and self.run_low <= self.top:
            spans = coverage.merge_spans([*self.base, (self.run_low, self.top)])
            await asyncio.to_thread(
                store.sync_file.record_progress,
                self.topic.name,
                self.topic.query,
                spans,
                self.syncer.today.isoformat(),
                result.arxiv_total,
            )
        self.saving = False


def window_query(query: str, first: str, last: str) -> str:
    """The topic's query within submission minutes `first` to `last` (GMT, inclusive), in the
    syntax arXiv documents: `submittedDate:[YYYYMMDDHHMM TO YYYYMMDDHHMM]`."""
    return f"({query}) AND submittedDate:[{first} TO {last}]"


def _minute_of(stamp: str) -> str:
    """`2026-12-02T12:34:56Z` -> `202612021234`."""
    return stamp[0:4] + stamp[5:7] + stamp[8:10] + stamp[11:13] + stamp[14:16]
