"""The main screen's parts never call one another: what one did that another follows goes up as a
message (TopicRemoved, SyncWanted, TriageStale, ListFilter.Matched...), which the screen hands to
the part it belongs to. Driven with Pilot: each message is seen posted and its effect shown."""

from __future__ import annotations

import threading

import pytest
from textual.message import Message

from reader.app.screens.list_filter import ListFilter
from reader.app.screens.part import OutsideTaken, PapersArranged, SyncWanted, TopicRemoved, TriageStale
from reader.app.screens.triage import Triage
from reader.service import FOR_YOU, View
from reader.store import Store
from tests.helpers.app import choose, make_app, ready
from tests.helpers.pilot import HANG, filter_by, reader_cli, until


class Posted:
    """The messages of the kinds asked for, as posted to the main screen (each once: a message is
    seen again as it bubbles)."""

    def __init__(self, *kinds: type[Message]):
        self.kinds, self.messages = kinds, []

    def __call__(self, message: Message) -> None:
        if isinstance(message, self.kinds) and message not in self.messages:
            self.messages.append(message)

    def of(self, kind: type[Message]) -> list:
        return [message for message in self.messages if isinstance(message, kind)]


async def test_a_topic_deleted_from_the_sidebar_is_forgotten_by_for_you(store, data_dir):
    posted = Posted(TopicRemoved)
    app = make_app(store)
    async with app.run_test(size=(120, 40), message_hook=posted) as pilot:
        await ready(pilot)
        await choose(pilot, View.of_topic("Agents"))
        await choose(pilot, FOR_YOU)
        await pilot.press("f")  # For you narrowed to the topic viewed last
        await ready(pilot)
        assert app.main.triage.for_you_topic == "Agents"
        await choose(pilot, View.of_topic("Agents"))
        await pilot.press("d", "y")
        await ready(pilot)
        assert [t.name for t in Store(data_dir).topics()] == ["Other"]
        assert [message.name for message in posted.of(TopicRemoved)] == ["Agents"]
        assert app.main.triage.for_you_topic is None and app.main.triage.last_topic is None


@pytest.mark.slow
async def test_a_topic_another_process_removed_is_forgotten_by_for_you(store, data_dir):
    posted = Posted(TopicRemoved, OutsideTaken)
    app = make_app(store)
    async with app.run_test(size=(120, 40), message_hook=posted) as pilot:
        await ready(pilot)
        await choose(pilot, View.of_topic("Agents"))
        await choose(pilot, FOR_YOU)
        await pilot.press("f")
        await ready(pilot)
        assert app.main.triage.for_you_topic == "Agents"
        await reader_cli(data_dir, "topics", "remove", "Agents")
        await until(pilot, lambda: app.main.triage.for_you_topic is None)
        assert [message.name for message in posted.of(TopicRemoved)] == ["Agents"] and posted.of(OutsideTaken)
        assert app.main.triage.last_topic is None and app.main.view == FOR_YOU


async def test_a_topic_added_asks_for_its_sync_which_runs(store, data_dir):
    posted = Posted(SyncWanted)
    app = make_app(store)  # arXiv unreachable: the sync runs, and says so
    async with app.run_test(size=(120, 40), message_hook=posted) as pilot:
        await ready(pilot)
        await pilot.press("a", *"Fresh", "tab", *"ti:fresh", "enter")
        await ready(pilot)
        await ready(pilot)
        assert [[topic.name for topic in message.topics] for message in posted.of(SyncWanted)] == [["Fresh"]]
        assert app.main.status_text.startswith(("Offline", "Sync failed", "Synced")), app.main.status_text
        assert "Syncing it now." in " ".join(app.message_log)


async def test_the_opening_and_a_watch_added_read_the_triage_again(store, data_dir):
    posted = Posted(TriageStale)
    app = make_app(store)
    async with app.run_test(size=(120, 40), message_hook=posted) as pilot:
        await ready(pilot)
        assert [message.visit for message in posted.of(TriageStale)] == [True]  # the opening records the visit
        posted.messages.clear()
        await pilot.press("w", *"Mine", "tab", *"ti:agents", "enter")
        await ready(pilot)
        assert [message.visit for message in posted.of(TriageStale)] == [False]
        assert app.main.view == View.of_watch("Mine")
        assert app.main.paper_list.ids and set(app.main.paper_list.ids) == app.service.triage.sets.watched["Mine"]


async def test_a_filters_matches_go_to_the_lists_order(store):
    posted = Posted(ListFilter.Matched)
    app = make_app(store)
    async with app.run_test(size=(120, 40), message_hook=posted) as pilot:
        await ready(pilot)
        await pilot.press("S", "S")  # sorted by title
        await ready(pilot)
        await filter_by(pilot, "agents")
        await ready(pilot)
        (matched,) = posted.of(ListFilter.Matched)
        assert not matched.best_first and len(matched.ids) > 1
        by_title = app.service.list_order.sorted(app.main.view, matched.ids, "title")
        assert list(app.main.paper_list.ids) == list(by_title)  # the filter's matches, in the view's chosen order
        assert "Sorted by title" in str(app.main.paper_list.border_title)


async def test_the_openings_visit_is_recorded_when_another_triage_read_is_asked_at_once(store, data_dir):
    """A watch added (or a sync's reload) just as the opening asks for its read: the read replaced
    before it began still records the visit, once."""
    app = make_app(store)
    asked: list[TriageStale] = []

    def another_read_at_once(message: Message) -> None:
        if isinstance(message, TriageStale) and message.visit and not asked:
            asked.append(message)
            app.main.post_message(TriageStale())  # queued behind the opening's, taken before its worker starts

    async with app.run_test(size=(120, 40), message_hook=another_read_at_once) as pilot:
        await ready(pilot)
        assert asked
        visits = Store(data_dir).user_state.file.read().visits
        assert "app" in visits and visits["app"][0] is None  # the opening's visit recorded, once (a first visit)


async def test_a_filters_matches_for_a_view_left_meanwhile_are_never_shown(store):
    """The view changed between a filter's answer and its matches' arrival: the list never shows
    the other view's matches (the filter runs again for the view chosen)."""
    app = make_app(store)
    other = View.of_topic("Other")
    shown: list[tuple[View, list[str]]] = []

    def hook(message: Message) -> None:
        if isinstance(message, ListFilter.Answered) and message.ids and app.main.view != other:
            app.main.call_later(setattr, app.main, "view", other)  # queued between the answer and its matches
        elif isinstance(message, PapersArranged) and app.main.view == other:
            shown.append((app.main.view, list(message.ids)))

    async with app.run_test(size=(120, 40), message_hook=hook) as pilot:
        await ready(pilot)
        app.main.list_filter.run("agents", None)  # its worker is replaced by the view's own filter
        await ready(pilot)
        assert app.main.view == other and shown
        in_other = set(app.service.select(other, unread=False))
        assert all(set(ids) <= in_other for _, ids in shown), "the view left's matches were shown"
        assert set(app.main.paper_list.ids) <= in_other


async def test_a_triage_read_replaced_meanwhile_never_overwrites_the_newer_one(store):
    """The opening's read, slow, is replaced by the read a watch added asks for: the older answer,
    arriving last, does not take the watch's papers away."""
    app = make_app(store)
    real_read = app.service.triage.read
    opening_read, newer_taken = threading.Event(), threading.Event()

    def read(*, visit: bool = False):
        sets = real_read(visit=visit)
        if visit:  # the opening's: read before the watch is added, answered after the newer read's
            opening_read.set()
            newer_taken.wait(HANG)
        return sets

    def hook(message: Message) -> None:
        if isinstance(message, Triage.SetsRead) and "Mine" in message.sets.watched:
            newer_taken.set()

    app.service.triage.read = read  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40), message_hook=hook) as pilot:
        await until(pilot, opening_read.is_set)
        await pilot.press("w", *"Mine", "tab", *"ti:agents", "enter")
        await until(pilot, newer_taken.is_set)
        await ready(pilot)
        assert "Mine" in app.service.triage.sets.watched
        assert app.main.view == View.of_watch("Mine") and app.main.paper_list.ids
