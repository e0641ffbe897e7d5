"""The main screen's topics, watches and tags: add, delete, rename. Each change asks first where
it removes something (papers, stars and read marks always stay) and runs in a worker."""

from __future__ import annotations

from typing import Protocol

from textual.message import Message

from reader.app.keys import key
from reader.app.screens.dialogs import AddTopicDialog, ConfirmDialog, TextDialog
from reader.app.screens.part import ScreenHost, ScreenPart, SyncWanted, TopicRemoved, TriageStale
from reader.core.names import tag_name
from reader.core.text import plural
from reader.errors import ReaderError
from reader.service import ALL, CacheUpdate, LibraryService, View
from reader.store import Topic, Watch


class SidebarNamesHost(ScreenHost, Protocol):
    """What the topics, watches and tags use of their screen: the view, and whether a sync runs
    (a topic just added is synced at once, else with it)."""

    service: LibraryService
    view: View
    syncing: bool


class SidebarNames(ScreenPart[SidebarNamesHost]):
    """Adding, renaming and deleting topics, watches and tags. What the workers (and the service's
    writer thread) did comes back as the messages below; the screen's handlers hand each to the
    method of the same name (`topic_deleted`, `watch_removed`, `tag_renamed`, `tag_deleted`).
    What the other parts follow goes up as `SyncWanted` (a topic added), `TopicRemoved` and
    `TriageStale` (a watch added or removed)."""

    class TopicDeleted(Message):
        def __init__(self, name: str, update: CacheUpdate):
            super().__init__()
            self.name, self.update = name, update

    class WatchRemoved(Message):
        def __init__(self, name: str):
            super().__init__()
            self.name = name

    class TagRenamed(Message):
        """`new`: the tag's name now (None: the rename failed, said by its `on_error`);
        `merged`: it joined a tag of that name."""

        def __init__(self, old: str, new: str | None, merged: bool):
            super().__init__()
            self.old, self.new, self.merged = old, new, merged

    class TagDeleted(Message):
        """`count`: how many papers had it (None: the delete failed, said by its `on_error`)."""

        def __init__(self, name: str, count: int | None):
            super().__init__()
            self.name, self.count = name, count

    # --- topics ------------------------------------------------------------------------------------

    def add_topic(self) -> None:
        def added(result: tuple[Topic, int, CacheUpdate] | None) -> None:
            if result is not None:
                self._topic_added(*result)

        # The dialog closes once the topic is saved (a refusal stays on it, with what was typed).
        self.screen.app.push_screen(AddTopicDialog(self.screen.service.add_topic), added)

    def _topic_added(self, topic: Topic, filled: int, update: CacheUpdate) -> None:
        self.screen.service.apply_update(update)
        self.screen.view = View.of_topic(topic.name)
        self.redraw_all()
        found = f"Added '{topic.name}': {plural(filled, 'cached paper', thousands=True)} match{'es' if filled == 1 else ''} it."
        syncing = self.screen.syncing
        self.screen.app.notify(found if syncing else f"{found} Syncing it now.")
        if not syncing:
            self.screen.post_message(SyncWanted([topic]))

    def _delete_topic(self, name: str) -> None:
        try:
            update = self.screen.service.remove_topic(name)
        except ReaderError as error:
            self.screen.app.notify(str(error), severity="error")  # thread-safe
            return
        self.screen.post_message(SidebarNames.TopicDeleted(name, update))

    def topic_deleted(self, name: str, update: CacheUpdate) -> None:
        self.screen.service.apply_update(update)
        self.screen.post_message(TopicRemoved(name))
        self.screen.view = ALL
        self.redraw_all()
        self.screen.app.notify(f"Deleted '{name}'. Its papers, stars and read marks stay in the cache.")

    # --- watches ------------------------------------------------------------------------------------

    def add_watch(self) -> None:
        def added(watch: Watch | None) -> None:
            if watch is None:
                return
            app = self.screen.app
            if self.screen.service.is_demo:  # saved for the papers a sync brings: the demo set is never watched
                app.notify(
                    f"Watching '{watch.name}' in your synced papers ({key(app, 'app.sync')} syncs your topics): the demo papers are not watched."
                )
                return
            self._watch_changed(f"Watching '{watch.name}': its papers are marked ◆ on their cards.", View.of_watch(watch.name))

        self.screen.app.push_screen(AddTopicDialog(self.screen.service.triage.add_watch, kind="watch"), added)

    def _delete_watch(self, name: str) -> None:
        try:
            self.screen.service.triage.remove_watch(name)
        except ReaderError as error:
            self.screen.app.notify(str(error), severity="error")  # thread-safe
            return
        self.screen.post_message(SidebarNames.WatchRemoved(name))

    def watch_removed(self, name: str) -> None:
        self._watch_changed(f"Stopped watching '{name}'.", ALL)

    def _watch_changed(self, message: str, view: View) -> None:
        self.screen.app.notify(message)
        self.screen.post_message(TriageStale())
        self.screen.view = view

    # --- tags ----------------------------------------------------------------------------------------

    def rename_tag(self) -> None:
        if self.screen.view.kind != "tag" or self.screen.view.name is None:
            self.screen.app.notify(
                f"Select a tag in the sidebar first: {key(self.screen.app, 'app.rename_tag')} renames it.", severity="warning"
            )
            return
        old = self.screen.view.name

        def check(new: str) -> str | None:
            try:
                tag_name(new)
            except ReaderError as error:
                return str(error)
            return None

        def renamed(new: str | None) -> None:
            if new and new != old:
                merged = new.casefold() != old.casefold() and any(t.casefold() == new.casefold() for t in self.screen.service.tags())
                # Done in the service's writer thread (or at once, if it was already done).
                self.screen.service.tags_notes.rename_tag(old, new, on_error=self._tag_error).add_done_callback(
                    lambda future: self.screen.post_message(SidebarNames.TagRenamed(old, future.result(), merged))
                )

        title = f"Rename the tag '{old}' (its papers keep it; an existing tag's name merges the two)"
        self.screen.app.push_screen(TextDialog(title, old, check), renamed)

    def tag_renamed(self, old: str, new: str | None, merged: bool) -> None:
        if new is not None:
            self.screen.view = View.of_tag(new)
            self.redraw(sidebar=True)
            self.screen.app.notify(f"Renamed the tag '{old}' to '{new}'." + (" The two tags are now one." if merged else ""))

    def _tag_error(self, message: str) -> None:
        self.screen.app.notify(message, severity="error", timeout=15)

    def tag_deleted(self, name: str, count: int | None) -> None:
        if count is not None:
            self.screen.view = ALL
            self.redraw(sidebar=True)
            self.screen.app.notify(f"Deleted the tag '{name}' ({count} papers had it; they stay).")

    # --- deleting what is selected -------------------------------------------------------------------

    def delete(self) -> None:
        """d: the selected topic, watch or tag, after asking."""
        view, name = self.screen.view, self.screen.view.name
        if view.kind not in ("topic", "watch", "tag") or name is None:
            self.screen.app.notify(
                f"Select a topic, watch or tag in the sidebar first: {key(self.screen.app, 'app.delete_topic')} deletes it.",
                severity="warning",
            )
            return
        question = {
            "topic": f"Delete the topic '{name}'? Papers, stars and read marks are kept.",
            "watch": f"Stop watching '{name}'? Nothing else changes.",
            "tag": f"Delete the tag '{name}'? The papers keep everything else.",
        }[view.kind]

        def answered(yes: bool | None) -> None:
            if not yes:
                return
            if view.kind == "topic":
                self.in_thread(self._delete_topic, name, group="topics")
            elif view.kind == "watch":
                self.in_thread(self._delete_watch, name, group="watches")
            else:
                self.screen.service.tags_notes.delete_tag(name, on_error=self._tag_error).add_done_callback(
                    lambda future: self.screen.post_message(SidebarNames.TagDeleted(name, future.result()))
                )

        self.screen.app.push_screen(ConfirmDialog(question, yes="Delete"), answered)
