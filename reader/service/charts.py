"""Each view's chart for the library service: weekly counts (counted once per cache index and
kept; a cache update counts them in its worker), the title and the headline, with what the syncs
recorded in sync.json (arXiv's totals, the spans synced whole, all new arXiv papers)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from reader.cache_index import CacheIndex
from reader.config import Settings
from reader.core.catalog import Catalog
from reader.core.coverage import Span, unsynced_note, unsynced_topics
from reader.core.momentum import Momentum, headline
from reader.service.views import View
from reader.store import Topic
from reader.store.sync_file import TopicSyncState, current_spans

if TYPE_CHECKING:
    from reader.service.demo import DemoSource


class Charts:
    """Given the settings and how to reach the service's catalog, topics and demo set (each
    changes under it). Changed on the UI's thread only, but for a view's first count, which the
    app's chart makes in a worker (see `momentum`)."""

    def __init__(
        self,
        settings: Settings,
        *,
        catalog: Callable[[], Catalog],
        topics: Callable[[], list[Topic]],
        demo: Callable[[], DemoSource | None],
    ):
        self._settings = settings
        self._catalog = catalog
        self._topics = topics
        self._demo = demo
        self.total_new_last4: int | None = None  # all new arXiv papers (momentum's share), from sync.json
        self.sync_states: dict[str, TopicSyncState] = {}  # coverage and arXiv totals, from sync.json
        self._momenta: dict[str | None, Momentum] = {}  # each view's chart, for the current index

    def take(self, total_new_last4: int | None, sync_states: dict[str, TopicSyncState], momenta: dict | None = None) -> None:
        """sync.json as read, with the views' counts made for the new index (none: counted when asked)."""
        self.total_new_last4, self.sync_states, self._momenta = total_new_last4, sync_states, dict(momenta or {})

    def forget_counts(self) -> None:
        self._momenta = {}

    def charted_already(self, view: View) -> bool:
        """Whether `momentum` answers at once for the view (else it counts its papers' weeks; the
        demo's thirty papers are counted at once)."""
        return self._demo() is not None or view.topic in self._momenta

    def momentum(self, view: View) -> Momentum:
        """Weekly counts for the view, as of today (from memory: no disk read)."""
        catalog, demo = self._catalog(), self._demo()
        if demo is not None:
            return demo.momentum(catalog, view.topic)
        # The counts' dict before the index: a new cache state taken meanwhile (a new dict, then)
        # leaves this count in the dropped one, never one of the old index in the new one.
        momenta = self._momenta
        momentum = momenta.get(view.topic)
        if momentum is None:
            spans = current_spans(self._topics(), self.sync_states)
            momentum = self._momentum_of(view.topic, self._catalog().index, spans, self.total_new_last4)
            momenta[view.topic] = momentum
        return momentum

    def counted(self, index: CacheIndex, topics: list[Topic], states: dict[str, TopicSyncState], total: int | None) -> dict:
        """Every view's counts for a cache update (`take` them with it): in its worker."""
        spans = current_spans(topics, states)
        return {name: self._momentum_of(name, index, spans, total) for name in [None, *(t.name for t in topics)]}

    def _momentum_of(self, topic: str | None, index: CacheIndex, spans: dict[str, tuple[Span, ...]], total: int | None) -> Momentum:
        return self._catalog().momentum(self._settings.today(), topic=topic, total_new_last4=total, spans=spans, index=index)

    def chart(self, view: View) -> tuple[Momentum, str, str]:
        """The chart's bars, title and headline for a view of papers; a topic's title says how
        many papers arXiv has for it (as of its last sync) beside how many are cached."""
        momentum = self.momentum(view)
        demo = self._demo()
        if demo is not None:
            return demo.chart(momentum, view)
        title = view.topic or "All papers"
        state = self.sync_states.get(view.topic) if view.topic else None
        if state is not None and state.arxiv_total is not None:
            cached = self._catalog().index.count_in(state.name)
            title += f" · {state.arxiv_total:,} on arXiv · {cached:,} cached"
        said = headline(momentum)
        if view.topic is None and (unsynced := unsynced_topics(current_spans(self._topics(), self.sync_states))):
            said += f" · {unsynced_note(unsynced)}"  # left out of the bars and figures
        return momentum, title, said
