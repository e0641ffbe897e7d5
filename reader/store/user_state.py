"""The user's state: topics, watches, marks, visits and settings, all kept in user.json (and its
current copy, see mirrored.py). A change rewrites only that small file, never the paper cache."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from reader.core.names import NameTaken, checked_name
from reader.errors import StoreError
from reader.store.user_doc import Marks, Topic, UserDoc, Watch

if TYPE_CHECKING:
    from reader.cache_index import CacheIndex
    from reader.store.mirrored import MirroredFile


def now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def now_ms() -> int:
    """Milliseconds since 1970 (UTC): when a paper arrived, when a visit was. A visit and the
    arrivals it should tell apart are always at least a file write and a request apart."""
    return int(time.time() * 1000)


class UserState:
    """What the user made in user.json: its one reader and writer in the store."""

    def __init__(self, file: MirroredFile[UserDoc], index: Callable[[], CacheIndex]):
        self.file = file
        self.index = index  # the paper cache's index: the versions of papers marked read

    # --- topics --------------------------------------------------------------------------------

    def topics(self) -> list[Topic]:
        return self.file.read().topic_list()

    def topic(self, name: str) -> Topic | None:
        found = self.file.read().find_topic(name)
        return None if found is None else Topic(found["name"], found["query"])

    def add_topic(self, name: str, query: str) -> Topic:
        """Add a topic (the caller has validated the query). Names are unique, ignoring case."""
        name, query = checked_name(name, "topic"), query.strip()

        def add(doc: UserDoc) -> None:
            if doc.find_topic(name) is not None:
                raise NameTaken(f"there is already a topic named {name!r}")
            doc.topics.append({"name": name, "query": query, "added": now_iso()})

        self.file.update("adding a topic", add)
        return Topic(name, query)

    # --- watches: names and words to look out for -----------------------------------------------

    def watches(self) -> list[Watch]:
        return [Watch(w["name"], w["query"]) for w in self.file.read().watches]

    def add_watch(self, name: str, query: str) -> Watch:
        """Add a watch (the caller has validated the query). Names are unique, ignoring case."""
        name, query = checked_name(name, "watch"), query.strip()
        if not query:
            raise StoreError(f"the watch {name!r} needs a query")

        def add(doc: UserDoc) -> None:
            if doc.find_watch(name) is not None:
                raise NameTaken(f"there is already a watch named {name!r}")
            doc.watches.append({"name": name, "query": query, "added": now_iso()})

        self.file.update("adding a watch", add)
        return Watch(name, query)

    def remove_watch(self, name: str) -> Watch:
        """Remove a watch (found ignoring case); a one-line error when there is none."""

        def remove(doc: UserDoc) -> Watch:
            found = doc.find_watch(name)
            if found is None:
                known = ", ".join(repr(w["name"]) for w in doc.watches) or "none yet"
                raise StoreError(f"no watch named {name!r} (watches: {known})")
            doc.watches.remove(found)
            return Watch(found["name"], found["query"])

        return self.file.update("removing a watch", remove)

    # --- read, starred and hidden marks ---------------------------------------------------------

    def marks(self) -> Marks:
        return self.file.read().mark_sets()

    def set_marks(self, ids: Iterable[str], *, read: bool | None = None, starred: bool | None = None, hidden: bool | None = None) -> None:
        """Mark papers read/unread, starred/unstarred and/or hidden/shown in one write of user.json.
        Marking read (again) keeps the version the cache holds: a later one is an update."""
        self.apply_marks(dict.fromkeys(ids, {"read": read, "starred": starred, "hidden": hidden}))

    def apply_marks(self, changes: Mapping[str, Mapping[str, bool | None]]) -> None:
        """Each paper's own changes of marks (paper id -> "read", "starred" or "hidden" -> wanted,
        None or left out: unchanged), all in one write of user.json."""
        index = self.index() if any(wanted.get("read") for wanted in changes.values()) else None

        def change(doc: UserDoc) -> None:
            for pid, wanted in changes.items():
                read = wanted.get("read")
                if read and index is not None:
                    position = index.position(pid)
                    doc.marks["read"][pid] = 0 if position is None else index.versions[position]
                else:
                    _mark(doc.marks["read"], pid, read, 0)
                _mark(doc.marks["starred"], pid, wanted.get("starred"), 0)
                _mark(doc.hidden, pid, wanted.get("hidden"), None)

        self.file.update("saving marks", change)

    def read_versions(self) -> dict[str, int]:
        """The version each read paper was at when marked read (when known)."""
        return {pid: version for pid, version in self.file.read().marks["read"].items() if version}

    def updated_ids(self) -> set[str]:
        """Read papers the cache now holds at a later version than the one read."""
        index, read = self.index(), self.file.read().marks["read"]
        return {pid for pid, version in zip(index.ids, index.versions) if 0 < read.get(pid, version) < version}

    # --- visits: what is new since the previous one ---------------------------------------------

    def record_visit(self, key: str) -> None:
        """The app was opened (key "app") or a topic looked at (its name): this visit becomes
        the current one, and the one before it the previous."""
        now = now_ms()

        def change(doc: UserDoc) -> None:
            before = doc.visits.get(key)
            doc.visits[key] = (None if before is None else min(before[1], now), now)

        self.file.update("saving a visit", change)

    def new_ids(self, topic: str | None = None) -> set[str]:
        """Papers (of `topic`, or of any) that arrived since the previous visit of the topic (or
        of the app). Arrivals with a topic's first sync are never new."""
        visit = self.file.read().visits.get("app" if topic is None else topic)
        since = visit[0] if visit is not None and visit[0] is not None else 0
        index = self.index()
        new = {pid for pid, arrived in zip(index.ids, index.arrived) if arrived > since}
        if topic is not None:
            new.intersection_update(index.in_topic(topic, index.ids))
        return new

    # --- settings ------------------------------------------------------------------------------

    def setting(self, key: str, default: Any = None) -> Any:
        return self.file.read().settings.get(key, default)

    def set_setting(self, key: str, value: Any) -> None:
        def change(doc: UserDoc) -> None:
            doc.settings[key] = value

        self.file.update("saving a setting", change)


def _mark(marked: dict[str, Any], pid: str, wanted: bool | None, value: Any) -> None:
    if wanted is True:
        marked.setdefault(pid, value)
    elif wanted is False:
        marked.pop(pid, None)
