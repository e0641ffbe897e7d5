"""The main screen's triage: new, updated and watched papers read from the store, For you ranked
in a worker (again once marking pauses), Rising, and the notes a card carries on its last line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on, work
from textual.screen import Screen
from textual.timer import Timer
from textual.worker import get_current_worker

from reader.app.keys import key
from reader.app.memory import keep_loaded
from reader.app.widgets.rising import RisingTable
from reader.core.ranking import NeedsStars
from reader.core.rising import RisingTerm, TopicTrend
from reader.core.text import plural, word_string
from reader.errors import ReaderError
from reader.service import FOR_YOU, HIDDEN, RISING, LibraryService, View
from reader.service.ranker import RankedList, RankingStopped
from reader.service.triage_sets import TriageSets

if TYPE_CHECKING:
    from reader.app.widgets.paper_list import PaperList

RERANK_DELAY = 2.0  # seconds of marking quiet before For you is ranked again
RECOUNT_DELAY = 0.3  # seconds after a mark before the sidebar counts For you's papers left again


class TriageActions(Screen):
    """Mixed into MainScreen, which provides the view and the panes."""

    service: LibraryService

    if TYPE_CHECKING:
        view: View

        @property
        def paper_list(self) -> PaperList: ...
        def refresh_sidebar(self) -> None: ...
        def refresh_chart(self) -> None: ...
        def refresh_list(self, *, keep: str | None = None) -> None: ...

    def init_triage(self) -> None:
        self.for_you_topic: str | None = None  # For you ranks this topic's papers, or every topic's
        self._last_topic: str | None = None  # the topic viewed last: what `f` narrows For you to
        self._ranked_version = -1  # the marks the shown ranking learned from
        self._ranking_pending = False
        self._rerank_timer: Timer | None = None
        self._rising_terms: dict[str, list[RisingTerm]] = {}  # per topic, until the next sync
        self.rising_unsynced = False  # a Rising figure is missing: those weeks are not synced whole
        self._reasons: dict[str, tuple[tuple[str, str], ...]] = {}  # For you: a card's reasons, drawn once
        self._ranked_ids: set[str] = set()  # the ranking's papers
        # How many of them are still to read, as of a version of the marks: counting takes a few ms
        # at 100,000 papers, so a mark is not kept waiting for it (see _for_you_detail).
        self._ranked_left: tuple[int, int] = (-1, 0)
        self._recount_timer: Timer | None = None

    def view_shown(self, view: View) -> None:
        """What the triage needs when the view changes: a visit, rising terms, a ranking."""
        if view.topic is not None:
            self._last_topic = view.topic
            self.service.visit_topic(view.topic)
            if view.topic not in self._rising_terms:
                self.find_rising_terms(view.topic)
        if view == FOR_YOU and self._ranked_version != self.service.library.marks_version:
            self.start_ranking()

    def topic_removed(self, name: str) -> None:
        """For you no longer narrows to a topic that is gone."""
        if self._last_topic == name:
            self._last_topic = None
        if self.for_you_topic == name:
            self.for_you_topic = None
            self.start_ranking()

    def marks_touched(self) -> None:
        if self.view == FOR_YOU and self._ranked_version != self.service.library.marks_version:
            # Retrain once the marking pauses, so a run of stars costs one ranking.
            if self._rerank_timer is not None:
                self._rerank_timer.stop()
            self._rerank_timer = self.set_timer(RERANK_DELAY, self.start_ranking)

    def rising_title(self, topic: str) -> str:
        terms = self._rising_terms.get(topic)
        return " · rising: " + ", ".join(term.term for term in terms[:3]) if terms else ""

    # --- new, updated, watched ---------------------------------------------------------------------

    def _read_triage(self, *, visit: bool = False) -> None:
        """In a worker, once the search index is current: new, updated and watched papers."""
        try:
            triage = self.service.read_triage(visit=visit)
        except ReaderError as error:
            self.app.call_from_thread(self.app.notify, f"Cannot read new and watched papers: {error}", severity="error")
            return
        self.app.call_from_thread(self._triaged, triage)

    @work(thread=True, exclusive=True, group="triage")
    def reload_triage(self) -> None:
        self._read_triage()

    def _triaged(self, triage: TriageSets) -> None:
        self.service.triage = triage
        self.refresh_sidebar()
        self.paper_list.refresh_cards()
        if self.view.kind in ("new", "updated", "watch"):
            self.refresh_list()
            self.refresh_chart()  # a watch's header shows its query, known from now on

    def _for_you_detail(self) -> str:
        ranking = self.service.for_you
        if isinstance(ranking, NeedsStars):
            return f"star {ranking.missing} more"
        if isinstance(ranking, RankedList):
            # Those still to read: marks made since count against it, counted a moment after the
            # marking (the sidebar is drawn at every mark; the count follows once it pauses).
            version, left = self._ranked_left
            if version != self.service.library.marks_version and self._recount_timer is None:
                self._recount_timer = self.set_timer(RECOUNT_DELAY, self._recount_ranked)
            return f"{left:,} ranked"
        return "by your stars"

    def _recount_ranked(self) -> None:
        self._recount_timer = None
        library = self.service.library
        self._ranked_left = (library.marks_version, count_left(self._ranked_ids, library.read, library.hidden, library.starred))
        self.refresh_sidebar()

    def _for_you_headline(self) -> str:
        library = self.service.library
        scope = f"the unread papers of {self.for_you_topic}" if self.for_you_topic else "the unread papers of every topic"
        scope_key = key(self.app, "app.for_you")
        scope += f" · {scope_key}: every topic" if self.for_you_topic else (f" · {scope_key}: this topic only" if self._last_topic else "")
        stale = " (updating…)" if self._ranking_pending else ""
        ranking = self.service.for_you
        if isinstance(ranking, NeedsStars):  # no ranking yet: the header says so, not "Ranked by"
            return f"Not ranked yet: {ranking.stars} of {ranking.needed} stars so far{stale}"
        marks = f"{plural(len(library.starred), 'star', thousands=True)} and {plural(len(library.read), 'read paper', thousands=True)}: {scope}"
        if ranking is None:  # the first ranking is being made
            return f"Ranking by {marks}…"
        return f"Ranked by {marks}{stale}"

    def start_ranking(self) -> None:
        self._ranking_pending = True
        self.refresh_chart()
        self.rank_for_you(self.service.ranking_marks(self.for_you_topic))

    @work(thread=True, exclusive=True, group="rank")
    def rank_for_you(self, marks: dict) -> None:
        """Train on the marks and rank (seconds at 100,000 papers); only the last one is shown."""
        try:
            result = self.service.rank_for_you(marks)
        except RankingStopped:
            return  # the app is quitting
        except ReaderError as error:
            self.app.call_from_thread(self._ranking_failed, str(error))
            return
        if not get_current_worker().is_cancelled:
            # Here, not on the UI's thread: the ranking's papers, and those left as of its marks.
            ranked_ids = set(result.ids) if isinstance(result, RankedList) else set()
            left = count_left(ranked_ids, marks["read"], marks["hidden"], marks["starred"])
            self.app.call_from_thread(self._ranked, result, marks["version"], ranked_ids, left)

    def _ranking_failed(self, message: str) -> None:
        self._ranking_pending = False
        self.refresh_chart()
        self.app.notify(f"Cannot rank the papers: {message}", severity="error")

    def _ranked(self, result: RankedList | NeedsStars, version: int, ranked_ids: set[str], left: int) -> None:
        self.service.for_you = result
        self._ranked_ids, self._ranked_left = ranked_ids, (version, left)
        keep_loaded()  # the ranking and its order (100,000 ids at most) stay until the next one
        self._ranked_version, self._ranking_pending = version, False
        self._reasons.clear()
        self.refresh_sidebar()
        if self.view == FOR_YOU:
            self.refresh_chart()
            self.refresh_list()

    def action_for_you_scope(self) -> None:
        """For you: the papers of every topic, or of the topic viewed last."""
        if self.view != FOR_YOU:
            self.view = FOR_YOU
            return
        if self.for_you_topic is None and self._last_topic is None:
            self.app.notify(f"Open a topic first: {key(self.app, 'app.for_you')} then ranks its papers only.")
            return
        self.for_you_topic = None if self.for_you_topic else self._last_topic
        self.start_ranking()

    def _annotate(self, paper_id: str) -> tuple[tuple[str, str], ...]:
        """A card's last line: that it was just hidden; else a newer version than the one read,
        the watches it matches, the user's tags, a note, and (For you) why it is ranked there."""
        service = self.service
        if paper_id in service.library.hidden and self.view != HIDDEN:
            return ((f"✕ hidden: left out of your views from now on · {key(self.app, 'app.hide')} brings it back", "paper-list--updated"),)
        if self.view == HIDDEN and paper_id not in service.library.hidden:
            return ((f"↩ shown again in your views · {key(self.app, 'app.hide')} hides it again", "paper-list--updated"),)
        parts: list[tuple[str, str]] = []
        triage = service.triage
        if paper_id in triage.updated:
            index = service.library.index
            position = index.position(paper_id)
            version = index.versions[position] if position is not None else "?"
            parts.append((f"↻ updated since you read it (v{triage.read_versions.get(paper_id, '?')} → v{version})  ", "paper-list--updated"))
        parts += [(f"◆ {name}  ", "paper-list--watch") for name, ids in triage.watched.items() if paper_id in ids]
        parts += [(f"#{tag}  ", "paper-list--user-tag") for tag in service.tags_of([paper_id]).get(paper_id, ())]
        if service.has_note(paper_id):
            parts.append(("✎ note  ", "paper-list--note"))
        return tuple(parts) + self._reason(paper_id)

    def _reason(self, paper_id: str) -> tuple[tuple[str, str], ...]:
        """For you: the paper's score and the terms weighing most for it."""
        ranking = self.service.for_you
        if self.view != FOR_YOU or not isinstance(ranking, RankedList):
            return ()
        found = self._reasons.get(paper_id)
        if found is None:
            score = ranking.score_of(paper_id)
            because = list(ranking.reasons.get(paper_id, ()))  # the best papers' (the model lives in its own process)
            card = self.paper_list.cached_card(paper_id)
            if card is not None:  # authors as they write themselves (S. Levine), not as searched (s levine)
                written = {word_string(name).strip(): name for name in card.authors}
                because = [written.get(word_string(reason).strip(), reason) for reason in because]
            text = f"{score:.2f}" + (f" · because: {', '.join(because)}" if because else "") if score is not None else ""
            found = self._reasons[paper_id] = ((text, "paper-list--reason"),) if text else ()
        return found

    @work(thread=True, exclusive=True, group="rising")
    def rank_topics(self) -> None:
        trends = self.service.rising_topics()
        self.app.call_from_thread(self._show_rising, trends)

    def _show_rising(self, trends: list[TopicTrend]) -> None:
        self.query_one("#rising", RisingTable).show(trends)
        self.rising_unsynced = any(trend.last4 is None or trend.prev4 is None for trend in trends)
        if self.view == RISING:
            self.refresh_chart()

    @work(thread=True, group="rising-terms")
    def find_rising_terms(self, topic: str) -> None:
        try:
            terms = self.service.rising_terms(topic)
        except ReaderError:
            return  # the chart simply names no terms
        self.app.call_from_thread(self._found_rising_terms, topic, terms)

    def _found_rising_terms(self, topic: str, terms: list[RisingTerm]) -> None:
        self._rising_terms[topic] = terms
        if self.view.topic == topic:
            self.refresh_chart()

    @on(RisingTable.TopicChosen)
    def _rising_topic_chosen(self, event: RisingTable.TopicChosen) -> None:
        self.view = View.of_topic(event.topic)
        self.paper_list.focus()


def count_left(ranked: set[str], *marked: set[str]) -> int:
    """How many of the ranked papers carry none of the marks (a set operation walks its smaller
    side: the marks, not the 100,000 ranked)."""
    return len(ranked) - len(ranked.intersection(set().union(*marked)))
