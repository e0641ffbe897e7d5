"""user.json in memory: what the user made (topics, marks, settings), checked on every read.

On disk it keeps TinyDB's layout (tables of numbered documents):

    meta      {"schema": N}
    topics    {"name", "query", "added"}, one per topic, in the order they were added
    settings  {"key", "value"}
    marks     {"kind": "read" | "starred", "ids": [...]}: a few bytes per paper, so a key press
              rewrites a small file even after years of reading. The read marks' document also
              has "versions": [...], one per id, the version each paper was at when marked read
              (0: not known, read before versions were kept; an older reader drops the column)
    hidden    {"ids": [...]}: papers marked "not interested", in the order they were hidden
    watches   {"name", "query", "added"}, one per watch (a query in arXiv's syntax matched
              against the cache), in the order they were added
    visits    {"key", "previous", "current"}: the last two times (milliseconds since 1970, UTC; no
              previous before the second visit) the app was opened (key "app") or a topic looked
              at (its name): what arrived since the previous one is new

Tables added after the first release are tables of their own, never new kinds in an old table:
an older reader keeps tables it does not know as they are, where it would take an unknown kind
for damage.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reader.errors import StoreError
from reader.store.files import Encoded, encode_json
from reader.store.schema import UserFileDoc, expect, is_int_list, is_str_list, named_queries, numbered, only_doc

USER_SCHEMA = 1
MARK_KINDS = ("read", "starred")


@dataclass(frozen=True, slots=True)
class Topic:
    name: str
    query: str


@dataclass(frozen=True, slots=True)
class Watch:
    name: str
    query: str


@dataclass(frozen=True, slots=True)
class Marks:
    read: frozenset[str] = frozenset()
    starred: frozenset[str] = frozenset()
    hidden: frozenset[str] = frozenset()


class _ReadMarksJSON:
    """The read marks as last encoded: most changes (a star, a hide, a visit) leave them as they
    were, and encoding them was most of a change's cost (4 ms of the writer's thread, and of the
    GIL, with 14,000 papers read). Kept while equal to the marks being written (a comparison in
    C, a tenth of the encoding); used under the file's lock."""

    __slots__ = ("json", "marks")

    def __init__(self) -> None:
        self.marks: dict[str, int] | None = None
        self.json = b""

    def of(self, read: dict[str, int]) -> Encoded:
        if self.marks != read:
            self.json = encode_json({"kind": "read", "ids": list(read), "versions": list(read.values())})
            self.marks = dict(read)
        return Encoded(self.json)


class UserDoc(UserFileDoc):
    """The parsed file. Mutated only inside `MirroredFile.update`; readers get snapshots."""

    FILE, SCHEMA, TABLES = "user.json", USER_SCHEMA, ("topics", "settings", "marks", "hidden", "watches", "visits")
    __slots__ = ("_read_json", "hidden", "marks", "settings", "topics", "visits", "watches")

    def __init__(self) -> None:
        super().__init__()
        self.topics: list[dict[str, Any]] = []
        self.settings: dict[str, Any] = {}
        # kind -> ids in the order they were marked (a dict: an ordered set), each with the
        # version read (read marks; 0 when not known) or 0
        self.marks: dict[str, dict[str, int]] = {kind: {} for kind in MARK_KINDS}
        self.hidden: dict[str, None] = {}
        self.visits: dict[str, tuple[int | None, int]] = {}  # key -> (previous, current)
        self.watches: list[dict[str, Any]] = []
        self._read_json = _ReadMarksJSON()  # shared by the copies made for changes

    def read_tables(self, data: dict) -> None:
        self.topics = named_queries(data, "topics", "topic", blank_query=True)
        for setting in data.get("settings", {}).values():
            expect(type(setting.get("key")) is str and "value" in setting, "settings: a setting without a key or value")
            self.settings[setting["key"]] = setting["value"]
        for mark in data.get("marks", {}).values():
            kind = mark.get("kind")
            expect(kind in MARK_KINDS, f"marks: unknown kind {kind!r}")
            ids = mark.get("ids")
            expect(is_str_list(ids), f"marks: the {kind} marks are not a list of ids")
            versions = mark.get("versions") if kind == "read" else None
            if versions is None:
                self.marks[kind] = dict.fromkeys(ids, 0)
            else:
                expect(
                    is_int_list(versions, 0) and len(versions) == len(ids), "marks: read versions that are not whole numbers, one per id"
                )
                self.marks[kind] = dict(zip(ids, versions))
        hidden = only_doc(data, "hidden")
        if hidden is not None:
            expect(is_str_list(hidden.get("ids")), "hidden: the hidden marks are not a list of ids")
            self.hidden = dict.fromkeys(hidden["ids"])
        self.watches = named_queries(data, "watches", "watch", blank_query=False)
        for visit in data.get("visits", {}).values():
            key, previous, current = visit.get("key"), visit.get("previous"), visit.get("current")
            expect(type(key) is str, "visits: a visit without its key")
            expect(
                is_int_list([current], 0) and (previous is None or is_int_list([previous], 0, current)),
                f"visits: the times of {key!r} are not times in order",
            )
            self.visits[key] = (previous, current)

    def dump_tables(self) -> dict[str, Any]:
        return {
            "topics": numbered(self.topics),
            "settings": numbered({"key": key, "value": value} for key, value in self.settings.items()),
            "marks": {
                "1": self._read_json.of(self.marks["read"]),
                "2": {"kind": "starred", "ids": list(self.marks["starred"])},
            },
            "hidden": {"1": {"ids": list(self.hidden)}},
            "watches": numbered(self.watches),
            "visits": numbered({"key": key, "previous": previous, "current": current} for key, (previous, current) in self.visits.items()),
        }

    def copy_tables(self, doc: UserDoc) -> None:
        doc.topics = list(self.topics)
        doc.settings = dict(self.settings)
        doc.marks = {kind: dict(ids) for kind, ids in self.marks.items()}
        doc.hidden = dict(self.hidden)
        doc.visits = dict(self.visits)
        doc.watches = list(self.watches)
        doc._read_json = self._read_json

    # --- what readers get ------------------------------------------------------------------------

    def topic_list(self) -> list[Topic]:
        return [Topic(t["name"], t["query"]) for t in self.topics]

    def find_topic(self, name: str) -> dict[str, Any] | None:
        wanted = name.casefold()
        return next((t for t in self.topics if t["name"].casefold() == wanted), None)

    def remove_topic(self, name: str) -> None:
        found = self.find_topic(name)
        if found is None:
            raise StoreError(f"no topic named {name!r}")
        self.topics.remove(found)
        self.visits.pop(found["name"], None)

    def find_watch(self, name: str) -> dict[str, Any] | None:
        wanted = " ".join(name.split()).casefold()
        return next((w for w in self.watches if w["name"].casefold() == wanted), None)

    def mark_sets(self) -> Marks:
        return Marks(frozenset(self.marks["read"]), frozenset(self.marks["starred"]), frozenset(self.hidden))
