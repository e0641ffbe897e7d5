"""The main screen's topics, watches and tags: add, delete, rename. Each change asks first where
it removes something (papers, stars and read marks always stay) and runs in a worker."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import work
from textual.screen import Screen

from reader.app.keys import key
from reader.app.screens.dialogs import AddTopicDialog, ConfirmDialog, TextDialog
from reader.errors import ReaderError
from reader.service import ALL, CacheUpdate, LibraryService, View
from reader.store import Topic, Watch
from reader.store.library_state import tag_name

if TYPE_CHECKING:
    from reader.app.widgets.status import StatusLine


class CollectionActions(Screen):
    """Mixed into MainScreen, which provides the view, the panes and sync."""

    service: LibraryService

    if TYPE_CHECKING:
        view: View
        reload_triage: Callable[[], object]  # a worker that reads new, updated and watched papers again

        @property
        def status(self) -> StatusLine: ...
        def refresh_sidebar(self) -> None: ...
        def refresh_everything(self, *, keep: str | None = None) -> None: ...
        def start_sync(self, topics: list[Topic]) -> None: ...
        def topic_removed(self, name: str) -> None: ...

    # --- topics ------------------------------------------------------------------------------------

    def action_add_topic(self) -> None:
        def added(topic: Topic | None) -> None:
            if topic is not None:
                self._topic_added(topic)

        self.app.push_screen(AddTopicDialog(self.service.add_topic), added)  # saved before it closes

    def _topic_added(self, topic: Topic) -> None:
        self.refresh_sidebar()
        self.view = View.of_topic(topic.name)
        self.app.notify(f"Added '{topic.name}'. Syncing it now.")
        if not self.status.syncing:
            self.start_sync([topic])

    @work(thread=True, group="topics")
    def _delete_topic(self, name: str) -> None:
        try:
            update = self.service.remove_topic(name)
        except ReaderError as error:
            self.app.call_from_thread(self.app.notify, str(error), severity="error")
            return
        self.app.call_from_thread(self._topic_deleted, name, update)

    def _topic_deleted(self, name: str, update: CacheUpdate) -> None:
        self.service.apply_update(update)
        self.topic_removed(name)
        self.view = ALL
        self.refresh_everything()
        self.app.notify(f"Deleted '{name}'. Its papers, stars and read marks stay in the cache.")

    # --- watches ------------------------------------------------------------------------------------

    def action_add_watch(self) -> None:
        def added(watch: Watch | None) -> None:
            if watch is None:
                return
            if self.service.is_demo:  # saved for the papers a sync brings: the demo set is never watched
                self.app.notify(f"Watching '{watch.name}' in your synced papers ({key(self.app, 'app.sync')} syncs your topics): the demo papers are not watched.")
                return
            self._watch_changed(f"Watching '{watch.name}': its papers are marked ◆ on their cards.", View.of_watch(watch.name))

        self.app.push_screen(AddTopicDialog(self.service.add_watch, kind="watch"), added)

    @work(thread=True, group="watches")
    def _delete_watch(self, name: str) -> None:
        try:
            self.service.remove_watch(name)
        except ReaderError as error:
            self.app.call_from_thread(self.app.notify, str(error), severity="error")
            return
        self.app.call_from_thread(self._watch_changed, f"Stopped watching '{name}'.", ALL)

    def _watch_changed(self, message: str, view: View) -> None:
        self.app.notify(message)
        self.reload_triage()
        self.view = view

    # --- tags ----------------------------------------------------------------------------------------

    def action_rename_tag(self) -> None:
        if self.view.kind != "tag" or self.view.name is None:
            self.app.notify(f"Select a tag in the sidebar first: {key(self.app, 'app.rename_tag')} renames it.", severity="warning")
            return
        old = self.view.name

        def check(new: str) -> str | None:
            try:
                tag_name(new)
            except ReaderError as error:
                return str(error)
            return None

        def renamed(new: str | None) -> None:
            if new and new != old:
                merged = new.casefold() != old.casefold() and any(t.casefold() == new.casefold() for t in self.service.tags())
                self.service.rename_tag(old, new, on_error=self._tag_error).add_done_callback(
                    lambda future: self.app.call_from_thread(self._tag_renamed, old, future.result(), merged)
                )

        title = f"Rename the tag '{old}' (its papers keep it; an existing tag's name merges the two)"
        self.app.push_screen(TextDialog(title, old, check), renamed)

    def _tag_renamed(self, old: str, new: str | None, merged: bool) -> None:
        if new is not None:
            self.view = View.of_tag(new)
            self.refresh_sidebar()
            self.app.notify(f"Renamed the tag '{old}' to '{new}'." + (" The two tags are now one." if merged else ""))

    def _tag_error(self, message: str) -> None:
        self.app.notify(message, severity="error", timeout=15)

    def _tag_deleted(self, name: str, count: int | None) -> None:
        if count is not None:
            self.view = ALL
            self.refresh_sidebar()
            self.app.notify(f"Deleted the tag '{name}' ({count} papers had it; they stay).")

    # --- deleting what is selected -------------------------------------------------------------------

    def action_delete(self) -> None:
        """d: the selected topic, watch or tag, after asking."""
        view, name = self.view, self.view.name
        if view.kind not in ("topic", "watch", "tag") or name is None:
            self.app.notify(f"Select a topic, watch or tag in the sidebar first: {key(self.app, 'app.delete_topic')} deletes it.", severity="warning")
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
                self._delete_topic(name)
            elif view.kind == "watch":
                self._delete_watch(name)
            else:
                self.service.delete_tag(name, on_error=self._tag_error).add_done_callback(
                    lambda future: self.app.call_from_thread(self._tag_deleted, name, future.result())
                )

        self.app.push_screen(ConfirmDialog(question, yes="Delete"), answered)
