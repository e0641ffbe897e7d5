"""What the main screen's panes say of the view shown: the sidebar's entries with their counts,
the chart's title and headline (or its bars), and what an empty list says to do. Nothing here
reads the disk: the counts are the catalog's in memory, a view's first chart is counted in the
chart's worker. What the other parts say in them (For you's line and header, Rising's terms, the
filter's) the screen hands in."""

from __future__ import annotations

from typing import Protocol

from reader.app.keys import key
from reader.app.screens.part import ScreenHost, ScreenPart
from reader.app.widgets.chart import COUNTING, ChartData
from reader.app.widgets.sidebar import SidebarEntry
from reader.core.ranking import NeedsStars
from reader.core.text import plural
from reader.service import ALL, FOR_YOU, HIDDEN, NEW, RISING, STARRED, UPDATED, LibraryService, View

VIEW_LABELS = {"starred": "Starred", "foryou": "For you", "new": "New", "updated": "Updated", "rising": "Rising", "hidden": "Hidden"}


class PanesHost(ScreenHost, Protocol):
    """What the panes' texts use of their screen: the view as it is shown."""

    service: LibraryService
    view: View
    unread_only: bool


class ViewPanes(ScreenPart[PanesHost]):
    """The sidebar's entries, the chart, the empty list's message, for the view shown."""

    def sidebar_entries(self, for_you: str) -> list[SidebarEntry]:
        """`for_you`: what the triage says under For you."""
        screen = self.screen
        catalog, service, triage = screen.service.catalog, screen.service, screen.service.triage.sets
        if not catalog.counted_already:  # while the opening worker counts
            return self._uncounted_entries(for_you)
        entries = [
            SidebarEntry(ALL, self.label(ALL), *catalog.counts()),
            SidebarEntry(STARRED, "Starred", *catalog.counts(starred=True)),
            SidebarEntry(FOR_YOU, "For you", detail=for_you),
            SidebarEntry(NEW, "New", *service.count(triage.new), detail=None if triage.new else "nothing new"),
            SidebarEntry(UPDATED, "Updated", *service.count(triage.updated), detail=None if triage.updated else "no new versions"),
            SidebarEntry(RISING, "Rising", detail="topic momentum"),
        ]
        if service.topics:
            entries.append(SidebarEntry.heading("Topics"))
        for topic in service.topics:
            new = service.count(triage.new_by_topic.get(topic.name, set()))[0]
            entries.append(SidebarEntry(View.of_topic(topic.name), topic.name, *catalog.counts(topic.name), new=new))
        if triage.watches:
            entries.append(SidebarEntry.heading("Watches"))
            entries += [
                SidebarEntry(View.of_watch(w.name), w.name, *service.count(triage.watched.get(w.name, set()))) for w in triage.watches
            ]
        if tags := service.tags():
            entries.append(SidebarEntry.heading("Tags"))
            entries += [SidebarEntry(View.of_tag(name), name, count) for name, count in tags.items()]
        hidden = catalog.counts(hidden=True)
        if hidden[0] or screen.view == HIDDEN:
            entries += [SidebarEntry.heading("Not interested"), SidebarEntry(HIDDEN, "Hidden", *hidden)]
        return entries

    def _uncounted_entries(self, for_you: str) -> list[SidebarEntry]:
        """The sidebar's views before the papers are counted (the same lines: nothing moves when
        the counts come)."""
        counting = "counting…"
        entries = [
            SidebarEntry(ALL, self.label(ALL), detail=counting),
            SidebarEntry(STARRED, "Starred", detail=counting),
            SidebarEntry(FOR_YOU, "For you", detail=for_you),
            SidebarEntry(NEW, "New", detail=counting),
            SidebarEntry(UPDATED, "Updated", detail=counting),
            SidebarEntry(RISING, "Rising", detail="topic momentum"),
        ]
        if self.screen.service.topics:
            entries.append(SidebarEntry.heading("Topics"))
            entries += [SidebarEntry(View.of_topic(topic.name), topic.name, detail=counting) for topic in self.screen.service.topics]
        return entries

    def label(self, view: View) -> str:
        """What the sidebar calls a view (also said in the export dialog)."""
        if view == ALL:
            return "All papers (demo)" if self.screen.service.is_demo else "All papers"
        return VIEW_LABELS.get(view.kind, view.name or view.kind)

    def chart_data(self, *, for_you: str, rising_unsynced: bool, rising_title: str) -> ChartData:
        """What the chart shows for the view (a first count of a topic's weeks: made in the chart's
        worker), with what the triage says: For you's header, whether a Rising figure is missing,
        the terms rising in the view's topic."""
        screen, service = self.screen, self.screen.service
        view, app = screen.view, screen.app
        if view == STARRED:
            return ChartData(None, "Starred", plural(service.catalog.counts(starred=True)[0], "starred paper", thousands=True))
        elif view == FOR_YOU:
            return ChartData(None, "For you", for_you)
        elif view == NEW:
            return ChartData(None, "New", "Papers that arrived since your last visit (a topic's first sync is not new)")
        elif view == UPDATED:
            return ChartData(None, "Updated", "Papers you read that arXiv has since revised: opening one shows the new version")
        elif view.kind == "watch":
            query = next((w.query for w in service.triage.sets.watches if w.name == view.name), "")
            return ChartData(None, f"Watch · {view.name}", f"Papers matching {query}")
        elif view.kind == "tag":
            return ChartData(
                None, f"Tag · {view.name}", f"{plural(len(service.select(view)), 'paper', thousands=True)} you tagged {view.name}"
            )
        elif view == HIDDEN:
            return ChartData(
                None,
                "Hidden",
                f"Papers you are not interested in: left out of every other view · {key(app, 'app.hide')} shows one again",
            )
        elif view == RISING:
            missing = f" · — means not synced ({key(app, 'app.sync')} syncs)" if rising_unsynced else ""
            return ChartData(None, "Rising", f"Topics by their last four weeks against the four before · Enter opens one{missing}")
        elif not service.charted_already(view) and not service.catalog.counted_already:  # the opening worker counts
            return ChartData(None, view.topic or self.label(ALL), COUNTING)
        elif not service.charted_already(view):  # a first count of the view's weeks: in the chart's worker
            return ChartData(None, view.topic or self.label(ALL), COUNTING, lambda: service.chart(view), rising_title)
        momentum, title, headline = service.chart(view)
        return ChartData(momentum, title + rising_title, headline)

    def empty_message(self, *, filtered: str | None, about: str | None) -> str:  # noqa: C901 (one message per kind of empty view)
        """Say what is empty and what to do about it (`filtered`: the filter typed, when one narrows
        the view; `about`: what a meaning query's empty answer says)."""
        screen, app = self.screen, self.screen.app
        view = screen.view
        if about is not None:
            return about
        if filtered is not None:
            return f"No papers match {filtered} — {key(app, 'app.clear_filter')} clears the filter"
        if view == FOR_YOU:
            return self._for_you_empty()
        if screen.unread_only:
            return f"Nothing unread here — {key(app, 'app.unread_only')} shows read papers too"
        if view == STARRED:
            return f"No starred papers yet — {key(app, 'app.star')} stars the highlighted paper"
        if view == HIDDEN:
            return f"No hidden papers — {key(app, 'app.hide')} hides a paper you are not interested in"
        if view == NEW:
            return f"Nothing new since your last visit — {key(app, 'app.sync')} syncs your topics"
        if view == UPDATED:
            return "None of the papers you read has a newer version"
        if view.kind == "watch":
            return f"No cached paper matches the watch {view.name} yet"
        if view.kind == "tag":
            return f"No papers tagged {view.name} — {key(app, 'app.tags')} tags the highlighted paper"
        if view.topic is not None:
            return f"No papers in {view.topic} yet — {key(app, 'app.sync')} syncs it from arXiv"
        return f"No papers yet — {key(app, 'app.sync')} syncs your topics, {key(app, 'app.add_topic')} adds a topic"

    def _for_you_empty(self) -> str:
        ranking = self.screen.service.for_you
        if isinstance(ranking, NeedsStars):
            return ranking.message
        if ranking is None:  # the first ranking since the start: it reads every paper's words
            papers = len(self.screen.service.catalog.index)
            # Measured at 100,000 papers: 4 s from the counts saved by an earlier ranking, 18 s without.
            wait = (
                " (the first after a start reads every paper: seconds; the first time, up to a second per 5,000 papers)"
                if papers > 20_000
                else ""
            )
            return f"Ranking {plural(papers, 'paper', thousands=True)} by your stars{wait}… the other views work meanwhile"
        return "Nothing left to rank: every paper here is read, starred or hidden"
