"""The sync state: sync.json, which only holds what the next sync rebuilds (when
each topic was last synced, arXiv's total for it, the spans of submission time its cache holds
completely, cached counts of all new arXiv papers, the ids `reader import` found arXiv without).
Derived state: never in user.json."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reader.store.files import CorruptFileError, move_aside, read_checked
from reader.store.schema import check_sync
from reader.store.user_state import now_iso

if TYPE_CHECKING:
    from tinydb import TinyDB
    from tinydb.queries import QueryInstance

    from reader.store.user_doc import Topic

Span = tuple[str, str]


@dataclass(frozen=True, slots=True)
class TopicSyncState:
    name: str
    query: str = ""
    last_sync: str | None = None  # ISO 8601 UTC, when a sync of the topic last finished
    arxiv_total: int | None = None  # arXiv's totalResults for the query over the sync horizon
    spans: tuple[Span, ...] = ()  # submission minutes (YYYYMMDDHHMM, GMT) fetched whole
    spans_fetched: str | None = None  # the day the newest span was fetched (YYYY-MM-DD)

    @classmethod
    def from_doc(cls, doc: dict[str, Any]) -> TopicSyncState:
        return cls(
            doc["name"],
            doc.get("query", ""),
            doc.get("last_sync"),
            doc.get("arxiv_total"),
            tuple((first, last) for first, last in doc.get("spans", [])),
            doc.get("spans_fetched"),
        )


def current_spans(topics: Iterable[Topic], states: dict[str, TopicSyncState]) -> dict[str, tuple[Span, ...]]:
    """Each topic's spans fetched whole: none for a topic never synced, or synced under another
    query than its current one."""
    return {t.name: state.spans if (state := states.get(t.name)) is not None and state.query == t.query else () for t in topics}


class SyncFile:
    """sync.json's one reader and writer. Its writes take the store's lock (`locked`), the one a
    save of papers takes: what a sync records follows the papers it saved."""

    def __init__(
        self,
        path: Path,
        locked: Callable[[str], AbstractContextManager[object]],
        topics: Callable[[], list[Topic]],
        warn: Callable[[str], None],
    ):
        self.path = path
        self._locked = locked
        self._topics = topics  # the current topics (user.json): a removed topic's state is not current
        self._warn = warn

    def _db(self) -> TinyDB:
        # tinydb is imported only here: every store checks sync.json when it opens (a `reader
        # star` too), which needs no more than the file read (see check).
        from tinydb import TinyDB

        from reader.store.tinydb_storage import AtomicJSONStorage

        return TinyDB(self.path, storage=AtomicJSONStorage, check=check_sync)

    @staticmethod
    def _where(field: str, value: object) -> QueryInstance:
        from tinydb import Query

        return Query()[field] == value

    def _read(self, table: str) -> list[dict[str, Any]]:
        try:
            return list(self._db().table(table).all())
        except CorruptFileError as error:
            self._move_aside(error)
            return []

    def _move_aside(self, error: CorruptFileError) -> None:
        self._warn(f"{error}: moved to {move_aside(self.path).name} (it is rebuilt at the next sync)")

    def check(self) -> None:
        """Read it once: a damaged sync.json is moved aside at once."""
        try:
            read_checked(self.path, check_sync)
        except CorruptFileError as error:
            self._move_aside(error)

    def forget_topic(self, name: str) -> None:
        """Drop a removed topic's state (the caller holds the store's lock)."""
        self._db().table("topics").remove(self._where("name", name))

    def sync_states(self) -> dict[str, TopicSyncState]:
        """Every topic's sync state by name (topics never synced have none)."""
        return {doc["name"]: TopicSyncState.from_doc(doc) for doc in self._read("topics")}

    def sync_state(self, topic: str) -> TopicSyncState:
        return self.sync_states().get(topic) or TopicSyncState(topic)

    def coverage_spans(self) -> dict[str, tuple[Span, ...]]:
        """Each current topic's spans fetched whole (see current_spans)."""
        return current_spans(self._topics(), self.sync_states())

    def last_sync(self, topic: str) -> str | None:
        return self.sync_state(topic).last_sync

    def _upsert_topic_state(self, topic: str, fields: dict[str, Any]) -> None:
        self._read("topics")  # repair before writing
        with self._locked("saving sync state"):
            self._db().table("topics").upsert({"name": topic, **fields}, self._where("name", topic))

    def record_progress(self, topic: str, query: str, spans: list[Span], fetched_day: str, arxiv_total: int | None) -> None:
        """What a sync has fetched whole so far (after the papers themselves are saved): an
        interrupted sync resumes from here."""
        fields: dict[str, Any] = {"query": query, "spans": [list(s) for s in spans], "spans_fetched": fetched_day}
        if arxiv_total is not None:
            fields["arxiv_total"] = arxiv_total
        self._upsert_topic_state(topic, fields)

    def record_sync(self, topic: str, query: str, categories: list[str] | None = None) -> None:
        self._upsert_topic_state(topic, {"query": query, "last_sync": now_iso(), "categories": categories or []})

    def synced_categories(self) -> list[str]:
        """The main categories of the current topics' papers, as their last syncs saw them."""
        current = {t.name for t in self._topics()}
        docs = self._read("topics")
        return sorted({c for d in docs if d.get("name") in current for c in d.get("categories", [])})

    def cached_total(self, window: str) -> int | None:
        """A cached count of all new arXiv papers in `window` (e.g. `20261105-20261202`)."""
        for doc in self._read("totals"):
            if doc.get("window") == window:
                return doc.get("count")
        return None

    def total_new_last4(self, as_of: date) -> int | None:
        """All new arXiv papers in the four weeks to `as_of` (momentum's share), as a sync
        counted them; None when none has."""
        from reader.core.momentum import total_window  # (only for momentum's share: not at every command's start)

        return self.cached_total(total_window(as_of))

    def cache_total(self, window: str, count: int) -> None:
        self._read("totals")  # repair before writing
        with self._locked("saving arXiv totals"):
            self._db().table("totals").upsert({"window": window, "count": count, "fetched": now_iso()}, self._where("window", window))

    def not_on_arxiv(self) -> dict[str, str]:
        """Ids `reader import` asked arXiv for and it had no paper under, each with the day it
        was asked (YYYY-MM-DD)."""
        docs = self._read("not_on_arxiv")
        return dict(docs[0]["ids"]) if docs else {}

    def malformed_on_arxiv(self) -> dict[str, str]:
        """Ids arXiv refused as malformed (HTTP 400: `2013.12345` has no month 13), kept beside
        those it had not, with the day asked."""
        docs = self._read("not_on_arxiv")
        return dict(docs[0].get("malformed", {})) if docs else {}

    def record_not_on_arxiv(self, asked: dict[str, str], found: Iterable[str] = (), malformed: dict[str, str] | None = None) -> None:
        """Remember the ids arXiv did not have and those it refused as malformed (id -> day
        asked); forget those it has now."""
        ids = {**self.not_on_arxiv(), **asked}  # repairs before writing
        refused = {**self.malformed_on_arxiv(), **(malformed or {})}
        for paper_id in found:
            ids.pop(paper_id, None)
            refused.pop(paper_id, None)
        with self._locked("saving the ids arXiv has not"):
            table = self._db().table("not_on_arxiv")
            docs = table.all()
            if docs:
                table.update({"ids": ids, "malformed": refused}, doc_ids=[docs[0].doc_id])
            else:
                table.insert({"ids": ids, "malformed": refused})
