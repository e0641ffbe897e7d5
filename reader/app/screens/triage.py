"""The main screen's triage: new, updated and watched papers read from the store, For you ranked
in a worker (again once marking pauses), Rising, and the notes a card carries on its last line."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Protocol

from textual.message import Message
from textual.timer import Timer
from textual.worker import Worker, get_current_worker

from reader.app.keys import key
from reader.app.memory import give_back_freed, keep_loaded
from reader.app.screens.part import ScreenHost, ScreenPart
from reader.core.ranking import NeedsStars
from reader.core.rising import RisingTerm, TopicTrend
from reader.core.text import plural, word_string
from reader.errors import ReaderError
from reader.service import FOR_YOU, HIDDEN, RISING, LibraryService, View
from reader.service.ranker import RankedList, RankingStopped
from reader.service.triage import TriageSets

if TYPE_CHECKING:
    from reader.app.widgets.paper_list import PaperList

RERANK_DELAY = 2.0  # seconds of marking quiet before For you is ranked again
RECOUNT_DELAY = 0.3  # seconds after a mark before the sidebar counts For you's papers left again


class TriageHost(ScreenHost, Protocol):
    """What the triage uses of its screen: the view, and the cards the list has read (their
    authors as written, in For you's reasons)."""

    service: LibraryService
    view: View

    @property
    def paper_list(self) -> PaperList: ...


class Triage(ScreenPart[TriageHost]):
    """New, updated and watched papers, For you, Rising, and what a card says on its last line.
    Its workers' results come back as the messages below; the screen's handlers hand each to the
    method that takes it (`take_sets`, `take_ranking`, `ranking_failed`, `show_rising`,
    `take_rising_terms`)."""

    class SetsRead(Message):
        """The new, updated and watched papers, read in a worker."""

        def __init__(self, sets: TriageSets):
            super().__init__()
            self.sets = sets

    class Ranked(Message):
        """For you ranked as of the marks' `version` (`left`: its papers still to read)."""

        def __init__(self, ranking: RankedList | NeedsStars, version: int, left: int):
            super().__init__()
            self.ranking, self.version, self.left = ranking, version, left

    class RankingFailed(Message):
        def __init__(self, problem: str):
            super().__init__()
            self.problem = problem

    class RisingRanked(Message):
        """The topics by momentum (the Rising view)."""

        def __init__(self, trends: list[TopicTrend]):
            super().__init__()
            self.trends = trends

    class RisingTermsFound(Message):
        """The terms rising in `topic` (named in its chart's title)."""

        def __init__(self, topic: str, terms: list[RisingTerm]):
            super().__init__()
            self.topic, self.terms = topic, terms

    def __init__(self, screen: TriageHost):
        super().__init__(screen)
        self.for_you_topic: str | None = None  # For you ranks this topic's papers, or every topic's
        self.last_topic: str | None = None  # the topic viewed last: what `f` narrows For you to
        self.ranked_version = -1  # the marks the shown ranking learned from
        self.ranking_pending = False
        self._rerank_timer: Timer | None = None
        self._rising_terms: dict[str, list[RisingTerm]] = {}  # per topic, until the next sync
        self.rising_unsynced = False  # a Rising figure is missing: those weeks are not synced whole
        self._reasons: dict[str, tuple[tuple[str, str], ...]] = {}  # For you: a card's reasons, drawn once
        # How many of them are still to read, as of a version of the marks: counting takes a few ms
        # at 100,000 papers, so a mark is not kept waiting for it (see sidebar_detail).
        self._ranked_left: tuple[int, int] = (-1, 0)
        self._recount_timer: Timer | None = None
        # The opening's visit, recorded by the first read that runs: an exclusive read replaced
        # before its thread began never runs, and a visit recorded twice would empty New.
        self._visit_owed = False
        self._visit_lock = threading.Lock()

    def view_shown(self, view: View) -> None:
        """What the triage needs when the view changes: a visit, rising terms, a ranking."""
        service = self.screen.service
        if view.topic is not None:
            self.last_topic = view.topic
            service.triage.visit_topic(view.topic)
            if view.topic not in self._rising_terms:
                self.find_rising_terms(view.topic)
        if view == FOR_YOU and self.ranked_version != service.catalog.marks_version:
            self.start_ranking()

    def topic_removed(self, name: str) -> None:
        """For you no longer narrows to a topic that is gone."""
        if self.last_topic == name:
            self.last_topic = None
        if self.for_you_topic == name:
            self.for_you_topic = None
            self.start_ranking()

    def changed_elsewhere(self) -> None:
        """Another process changed the cache or the marks: Rising, if shown, is ranked again."""
        if self.screen.view == RISING:
            self.rank_topics()

    def marks_touched(self) -> None:
        if self.screen.view == FOR_YOU and self.ranked_version != self.screen.service.catalog.marks_version:
            # Retrain once the marking pauses, so a run of stars costs one ranking.
            if self._rerank_timer is not None:
                self._rerank_timer.stop()
            self._rerank_timer = self.screen.set_timer(RERANK_DELAY, self.start_ranking)

    def rising_title(self, topic: str) -> str:
        terms = self._rising_terms.get(topic)
        return " · rising: " + ", ".join(term.term for term in terms[:3]) if terms else ""

    # --- new, updated, watched ---------------------------------------------------------------------

    def _read(self) -> None:
        """In a worker, once the search index is current: new, updated and watched papers."""
        with self._visit_lock:
            visit, self._visit_owed = self._visit_owed, False
        try:
            triage = self.screen.service.triage.read(visit=visit)
        except ReaderError as error:
            self.screen.app.notify(f"Cannot read new and watched papers: {error}", severity="error")  # thread-safe
            return
        if not get_current_worker().is_cancelled:  # a newer read replaced it: its answer, maybe first, stands
            self.screen.post_message(Triage.SetsRead(triage))

    def reload(self, *, visit: bool = False) -> Worker:
        if visit:
            with self._visit_lock:
                self._visit_owed = True
        return self.in_thread(self._read, group="triage", exclusive=True)

    def take_sets(self, triage: TriageSets) -> None:
        screen = self.screen
        screen.service.triage.sets = triage
        # The cards' marks (◆ a watch's), and a watch's header shows its query, known from now on.
        shown_here = screen.view.kind in ("new", "updated", "watch")
        self.redraw(sidebar=True, cards=True, papers=shown_here, chart=shown_here)

    # --- For you ---------------------------------------------------------------------------------------

    def sidebar_detail(self) -> str:
        """What the sidebar says under For you."""
        ranking = self.screen.service.for_you
        if isinstance(ranking, NeedsStars):
            return f"star {ranking.missing} more"
        if isinstance(ranking, RankedList):
            # Those still to read: marks made since count against it, counted a moment after the
            # marking (the sidebar is drawn at every mark; the count follows once it pauses).
            version, left = self._ranked_left
            if version != self.screen.service.catalog.marks_version and self._recount_timer is None:
                self._recount_timer = self.screen.set_timer(RECOUNT_DELAY, self._recount_ranked)
            return f"{left:,} ranked"
        return "by your stars"

    def _recount_ranked(self) -> None:
        self._recount_timer = None
        catalog = self.screen.service.catalog
        ranking = self.screen.service.for_you
        left = ranking.unmarked(catalog.read, catalog.hidden, catalog.starred) if isinstance(ranking, RankedList) else 0
        self._ranked_left = (catalog.marks_version, left)
        self.redraw(sidebar=True)

    def headline(self) -> str:
        """What For you's chart header says."""
        catalog = self.screen.service.catalog
        scope = f"the unread papers of {self.for_you_topic}" if self.for_you_topic else "the unread papers of every topic"
        scope_key = key(self.screen.app, "app.for_you")
        scope += f" · {scope_key}: every topic" if self.for_you_topic else (f" · {scope_key}: this topic only" if self.last_topic else "")
        stale = " (updating…)" if self.ranking_pending else ""
        ranking = self.screen.service.for_you
        if isinstance(ranking, NeedsStars):  # no ranking yet: the header says so, not "Ranked by"
            return f"Not ranked yet: {ranking.stars} of {ranking.needed} stars so far{stale}"
        marks = (
            f"{plural(len(catalog.starred), 'star', thousands=True)} and {plural(len(catalog.read), 'read paper', thousands=True)}: {scope}"
        )
        if ranking is None:  # the first ranking is being made
            return f"Ranking by {marks}…"
        return f"Ranked by {marks}{stale}"

    def start_ranking(self) -> None:
        self.ranking_pending = True
        self.redraw(chart=True)
        self.in_thread(self._rank, self.screen.service.ranker.marks(self.for_you_topic), group="rank", exclusive=True)

    def _rank(self, marks: dict) -> None:
        """In a worker: train on the marks and rank (seconds at 100,000 papers); only the last
        one is shown."""
        try:
            result = self.screen.service.rank_for_you(marks)
        except RankingStopped:
            return  # the app is quitting
        except ReaderError as error:
            self.screen.post_message(Triage.RankingFailed(str(error)))
            return
        if not get_current_worker().is_cancelled:
            # Here, not on the UI's thread: the ranking's papers left as of its marks.
            left = result.unmarked(marks["read"], marks["hidden"], marks["starred"]) if isinstance(result, RankedList) else 0
            give_back_freed()  # what unpickling the ranking and mapping its order left (~60 MB at 1,000,000 papers)
            self.screen.post_message(Triage.Ranked(result, marks["version"], left))

    def ranking_failed(self, message: str) -> None:
        self.ranking_pending = False
        self.redraw(chart=True)
        self.screen.app.notify(f"Cannot rank the papers: {message}", severity="error")

    def take_ranking(self, result: RankedList | NeedsStars, version: int, left: int) -> None:
        """A ranking made as of the marks' `version`, shown (on the UI's thread)."""
        screen = self.screen
        screen.service.for_you = result
        self._ranked_left = (version, left)
        keep_loaded()  # the ranking and its order stay until the next one
        self.ranked_version, self.ranking_pending = version, False
        self._reasons.clear()
        for_you = screen.view == FOR_YOU
        self.redraw(sidebar=True, chart=for_you, papers=for_you)

    def for_you_scope(self) -> None:
        """For you: the papers of every topic, or of the topic viewed last."""
        if self.screen.view != FOR_YOU:
            self.screen.view = FOR_YOU
            return
        if self.for_you_topic is None and self.last_topic is None:
            self.screen.app.notify(f"Open a topic first: {key(self.screen.app, 'app.for_you')} then ranks its papers only.")
            return
        self.for_you_topic = None if self.for_you_topic else self.last_topic
        self.start_ranking()

    # --- a card's last line ----------------------------------------------------------------------------

    def annotate(self, paper_id: str) -> tuple[tuple[str, str], ...]:
        """A card's last line: that it was just hidden; else a newer version than the one read,
        the watches it matches, the user's tags, a note, and (For you) why it is ranked there."""
        service, view = self.screen.service, self.screen.view  # runs for every card drawn: the key is asked only when said
        if paper_id in service.catalog.hidden and view != HIDDEN:
            return (
                (
                    f"✕ hidden: left out of your views from now on · {key(self.screen.app, 'app.hide')} brings it back",
                    "paper-list--updated",
                ),
            )
        if view == HIDDEN and paper_id not in service.catalog.hidden:
            return ((f"↩ shown again in your views · {key(self.screen.app, 'app.hide')} hides it again", "paper-list--updated"),)
        parts: list[tuple[str, str]] = []
        triage = service.triage.sets
        if paper_id in triage.updated:
            index = service.catalog.index
            position = index.position(paper_id)
            version = index.versions[position] if position is not None else "?"
            parts.append(
                (f"↻ updated since you read it (v{triage.read_versions.get(paper_id, '?')} → v{version})  ", "paper-list--updated")
            )
        parts += [(f"◆ {name}  ", "paper-list--watch") for name, ids in triage.watched.items() if paper_id in ids]
        parts += [(f"#{tag}  ", "paper-list--user-tag") for tag in service.tags_of([paper_id]).get(paper_id, ())]
        if service.has_note(paper_id):
            parts.append(("✎ note  ", "paper-list--note"))
        return tuple(parts) + self._reason(paper_id)

    def _reason(self, paper_id: str) -> tuple[tuple[str, str], ...]:
        """For you: the paper's score and the terms weighing most for it."""
        ranking = self.screen.service.for_you
        if self.screen.view != FOR_YOU or not isinstance(ranking, RankedList):
            return ()
        found = self._reasons.get(paper_id)
        if found is None:
            score = ranking.score_of(paper_id)
            because = list(ranking.reasons.get(paper_id, ()))  # the best papers' (the model lives in its own process)
            card = self.screen.paper_list.cached_card(paper_id)
            if card is not None:  # authors as they write themselves (S. Levine), not as searched (s levine)
                written = {word_string(name).strip(): name for name in card.authors}
                because = [written.get(word_string(reason).strip(), reason) for reason in because]
            text = f"{score:.2f}" + (f" · because: {', '.join(because)}" if because else "") if score is not None else ""
            found = self._reasons[paper_id] = ((text, "paper-list--reason"),) if text else ()
        return found

    # --- Rising ----------------------------------------------------------------------------------------

    def rank_topics(self) -> None:
        self.in_thread(self._rank_topics, group="rising", exclusive=True)

    def _rank_topics(self) -> None:
        trends = self.screen.service.rising_topics()
        self.screen.post_message(Triage.RisingRanked(trends))

    def take_rising(self, trends: list[TopicTrend]) -> None:
        """The topics by momentum, ranked (the screen shows them in its Rising table)."""
        self.rising_unsynced = any(trend.last4 is None or trend.prev4 is None for trend in trends)
        if self.screen.view == RISING:
            self.redraw(chart=True)

    def find_rising_terms(self, topic: str) -> None:
        self.in_thread(self._find_rising_terms, topic, group="rising-terms")

    def _find_rising_terms(self, topic: str) -> None:
        try:
            terms = self.screen.service.rising_terms(topic)
        except ReaderError:
            return  # the chart simply names no terms
        self.screen.post_message(Triage.RisingTermsFound(topic, terms))

    def take_rising_terms(self, topic: str, terms: list[RisingTerm]) -> None:
        self._rising_terms[topic] = terms
        if self.screen.view.topic == topic:
            self.redraw(chart=True)
