"""The cache in a data directory, split so that each kind of write stays cheap.

    user.json        topics, read/starred marks, settings (small: a key press rewrites only this)
    user.json.bak    the last copy of user.json known to be good, refreshed at every start
    sync.json        when each topic was last synced; cached counts of all new arXiv papers
    index.json       every paper's id, version, v1 day and topics, as columns in display order
                     (what counts, the chart and the list need, without loading any paper)
    papers/YYMM.NN.json  the full records, one file per thousand arXiv ids (`2609.12345` lives in
                     `2609.12.json`), written only by sync: small files load and save in
                     milliseconds, so neither a sync nor the app's loader holds the GIL for long

Every file is a TinyDB database written atomically (see files.py). The big files are read and
written whole through the same storage, not document by document: TinyDB rewrites the whole file
on each operation, which is fine for user.json and ruinous for 100,000 papers.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from tinydb import Query, TinyDB

from reader.errors import StoreError
from reader.models import IndexEntry, Paper, PaperIndex
from reader.store.files import (
    AtomicJSONStorage,
    CorruptFileError,
    file_lock,
    move_aside,
    read_json,
    write_atomic,
    write_json_atomic,
)

SCHEMA_VERSION = 1
LOCK_WAIT_SECONDS = 10.0


def shard_of(arxiv_id: str) -> str:
    """The id's month and thousand: `2609.12345` -> `2609.12`, `hep-th/9901001` -> `9901.0`."""
    if "/" in arxiv_id:
        number = arxiv_id.split("/", 1)[1]
        return f"{number[:4]}.{number[4]}"
    month, _, number = arxiv_id.partition(".")
    return f"{month}.{number[:-3]}"


def _shard_sort_key(shard: str) -> str:
    return ("19" if shard >= "90" else "20") + shard


def _read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True, slots=True)
class Topic:
    name: str
    query: str


@dataclass(frozen=True, slots=True)
class Marks:
    read: frozenset[str] = frozenset()
    starred: frozenset[str] = frozenset()


@dataclass(slots=True)
class SaveResult:
    new: int = 0
    updated: int = 0
    changed_ids: list[str] = field(default_factory=list)  # new or newer records


class Store:
    """One data directory. Safe to use from several processes at once: each write takes a short
    lock and re-reads what it changes, so a `reader star` beside a running app loses nothing."""

    def __init__(self, data_dir: Path):
        self.data_dir = Path(data_dir)
        self.warnings: list[str] = []  # what was repaired on the way, for the user to read
        try:
            (self.data_dir / "papers").mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StoreError(f"cannot create the data directory {self.data_dir}: {error.strerror}") from None
        self._user_path = self.data_dir / "user.json"
        self._sync_path = self.data_dir / "sync.json"
        self._index_path = self.data_dir / "index.json"
        self._lock_path = self.data_dir / ".lock"  # papers, index, sync state
        # User state has a lock of its own: a star never waits for a sync's save of papers.
        self._user_lock_path = self.data_dir / ".user.lock"
        self._index: PaperIndex | None = None
        self._index_stamp: tuple[int, int] | None = None
        self._marks: Marks | None = None
        self._check_user_file()
        self._check_sync_file()

    # --- locking and the small TinyDB files -------------------------------------------------

    def _locked(self, what: str):
        return file_lock(self._lock_path, wait=LOCK_WAIT_SECONDS, what=what)

    def _user_locked(self, what: str):
        return file_lock(self._user_lock_path, wait=LOCK_WAIT_SECONDS, what=what)

    def _db(self, path: Path) -> TinyDB:
        return TinyDB(path, storage=AtomicJSONStorage)

    def _check_user_file(self) -> None:
        """Repair user.json from its last good copy if it is damaged; refresh that copy if not."""
        backup = self._user_path.with_name("user.json.bak")
        try:
            data = read_json(self._user_path)
        except CorruptFileError as error:
            aside = move_aside(self._user_path)
            restored = False
            try:
                good = read_json(backup)
                if good is not None:
                    write_json_atomic(self._user_path, good)
                    restored = True
            except CorruptFileError:
                pass
            self.warnings.append(
                f"{error}: moved to {aside.name}; "
                + ("restored topics, stars and read marks from the last good copy" if restored else "no good copy to restore")
            )
            return
        if data is None:
            return
        schema = max((m.get("schema", 1) for m in data.get("meta", {}).values()), default=1)
        if schema > SCHEMA_VERSION:
            raise StoreError(f"{self._user_path} was written by a newer reader (schema {schema}); please upgrade")
        try:
            if _read_bytes(backup) != _read_bytes(self._user_path):  # most starts: nothing to copy
                write_json_atomic(backup, data)
        except StoreError as error:
            self.warnings.append(f"could not refresh the backup of user state: {error}")

    def _check_sync_file(self) -> None:
        """A damaged sync.json is moved aside at once (it only holds what the next sync rebuilds)."""
        self._read_small(self._sync_path, "topics")

    def _read_small(self, path: Path, table: str) -> list[dict[str, Any]]:
        """All documents of a table in a small file; a damaged sync.json is moved aside and forgotten."""
        try:
            return list(self._db(path).table(table).all())
        except CorruptFileError as error:
            if path == self._user_path:
                raise
            self.warnings.append(f"{error}: moved to {move_aside(path).name} (it is rebuilt at the next sync)")
            return []

    def sync_lock(self):
        """Held for a whole sync: a second sync of the same data directory refuses at once."""
        return file_lock(self.data_dir / ".sync.lock", wait=0, what="cannot sync")

    # --- topics --------------------------------------------------------------------------------

    def topics(self) -> list[Topic]:
        return [Topic(d["name"], d["query"]) for d in self._read_small(self._user_path, "topics")]

    def topic(self, name: str) -> Topic | None:
        wanted = name.casefold()
        return next((t for t in self.topics() if t.name.casefold() == wanted), None)

    def add_topic(self, name: str, query: str) -> Topic:
        """Add a topic (the caller has validated the query). Names are unique, ignoring case."""
        name, query = name.strip(), query.strip()
        if not name:
            raise StoreError("a topic needs a name")
        with self._user_locked("adding a topic"):
            if self.topic(name) is not None:
                raise StoreError(f"there is already a topic named {name!r}")
            db = self._db(self._user_path)
            self._ensure_meta(db)
            db.table("topics").insert({"name": name, "query": query, "added": now_iso()})
        return Topic(name, query)

    def remove_topic(self, name: str) -> Topic:
        topic = self.topic(name)
        if topic is None:
            raise StoreError(f"no topic named {name!r}")
        with self._user_locked("removing a topic"), self._locked("removing a topic"):
            self._db(self._user_path).table("topics").remove(Query().name == topic.name)
            self._sync_db().table("topics").remove(Query().name == topic.name)
            entries = self._load_index(force=True).entries()
            for entry in entries.values():
                if topic.name in entry.topics:
                    entry.topics.remove(topic.name)
            self._write_index(PaperIndex.build(entries))
        return topic

    def _ensure_meta(self, db: TinyDB) -> None:
        if not db.table("meta").all():
            db.table("meta").insert({"schema": SCHEMA_VERSION})

    # --- read and starred marks ----------------------------------------------------------------

    # Marks are two documents in user.json's `marks` table, {"kind": "read"|"starred", "ids": [...]}:
    # a few bytes per paper, so a key press rewrites a small file even after years of reading.

    @staticmethod
    def _mark_lists(data: dict | None) -> dict[str, list[str]]:
        """kind -> ids, in the order they were marked."""
        lists: dict[str, list[str]] = {"read": [], "starred": []}
        for doc in (data or {}).get("marks", {}).values():
            ids = doc.get("ids")
            if doc.get("kind") in lists and isinstance(ids, list):
                lists[doc["kind"]] = ids
        return lists

    @classmethod
    def _marks_from(cls, data: dict | None) -> Marks:
        lists = cls._mark_lists(data)
        try:
            return Marks(frozenset(lists["read"]), frozenset(lists["starred"]))
        except TypeError:  # something unhashable where ids belong: treat as damage
            raise CorruptFileError(Path("user.json"), "marks are not lists of ids") from None

    def marks(self) -> Marks:
        if self._marks is None:
            self._marks = self._marks_from(read_json(self._user_path))
        return self._marks

    def set_marks(self, ids: Iterable[str], *, read: bool | None = None, starred: bool | None = None) -> Marks:
        """Mark papers read/unread and/or starred/unstarred in one write of user.json."""
        ids = list(dict.fromkeys(ids))
        with self._user_locked("saving read/starred marks"):
            storage = AtomicJSONStorage(self._user_path)
            data = storage.read() or {}  # fresh from disk: other processes' marks count
            lists = self._mark_lists(data)
            for kind, wanted in (("read", read), ("starred", starred)):
                if wanted is True:
                    present = set(lists[kind])
                    lists[kind] = lists[kind] + [pid for pid in ids if pid not in present]
                elif wanted is False:
                    dropped = set(ids)
                    lists[kind] = [pid for pid in lists[kind] if pid not in dropped]
            data.setdefault("meta", {"1": {"schema": SCHEMA_VERSION}})
            data["marks"] = {"1": {"kind": "read", "ids": lists["read"]}, "2": {"kind": "starred", "ids": lists["starred"]}}
            storage.write(data)
        self._marks = Marks(frozenset(lists["read"]), frozenset(lists["starred"]))
        return self._marks

    # --- settings ------------------------------------------------------------------------------

    def setting(self, key: str, default: Any = None) -> Any:
        for doc in self._read_small(self._user_path, "settings"):
            if doc.get("key") == key:
                return doc.get("value", default)
        return default

    def set_setting(self, key: str, value: Any) -> None:
        with self._user_locked("saving a setting"):
            db = self._db(self._user_path)
            self._ensure_meta(db)
            db.table("settings").upsert({"key": key, "value": value}, Query().key == key)

    # --- sync state ----------------------------------------------------------------------------

    def _sync_db(self) -> TinyDB:
        return self._db(self._sync_path)

    def last_sync(self, topic: str) -> str | None:
        for doc in self._read_small(self._sync_path, "topics"):
            if doc.get("name") == topic:
                return doc.get("last_sync")
        return None

    def record_sync(self, topic: str, query: str, categories: list[str] | None = None) -> None:
        with self._locked("saving sync state"):
            self._sync_db().table("topics").upsert(
                {"name": topic, "query": query, "last_sync": now_iso(), "categories": categories or []},
                Query().name == topic,
            )

    def synced_categories(self) -> list[str]:
        """The main categories of the current topics' papers, as their last syncs saw them."""
        current = {t.name for t in self.topics()}
        docs = self._read_small(self._sync_path, "topics")
        return sorted({c for d in docs if d.get("name") in current for c in d.get("categories", [])})

    def cached_total(self, window: str) -> int | None:
        """A cached count of all new arXiv papers in `window` (e.g. `20261105-20261202`)."""
        for doc in self._read_small(self._sync_path, "totals"):
            if doc.get("window") == window:
                return doc.get("count")
        return None

    def cache_total(self, window: str, count: int) -> None:
        with self._locked("saving arXiv totals"):
            self._sync_db().table("totals").upsert(
                {"window": window, "count": count, "fetched": now_iso()}, Query().window == window
            )

    # --- the paper index -----------------------------------------------------------------------

    def _stamp(self) -> tuple[int, int] | None:
        try:
            stat = self._index_path.stat()
        except FileNotFoundError:
            return None
        return stat.st_mtime_ns, stat.st_size

    def index(self) -> PaperIndex:
        """Every cached paper, newest first (re-read when another process changed it)."""
        return self._load_index()

    def _load_index(self, force: bool = False) -> PaperIndex:
        stamp = self._stamp()
        if self._index is not None and not force and stamp == self._index_stamp:
            return self._index
        try:
            data = read_json(self._index_path)
        except CorruptFileError as error:
            aside = move_aside(self._index_path)
            self.warnings.append(f"{error}: moved to {aside.name}; rebuilt it from the cached papers")
            return self._rebuild_index()
        try:
            self._index = PaperIndex.from_json(next(iter(data["index"].values()))) if data else PaperIndex()
        except (KeyError, StopIteration, TypeError, ValueError, AttributeError):
            aside = move_aside(self._index_path)
            self.warnings.append(f"index.json is damaged: moved to {aside.name}; rebuilt it from the cached papers")
            return self._rebuild_index()
        self._index_stamp = stamp
        return self._index

    def _write_index(self, index: PaperIndex) -> None:
        text = f'{{"meta":{{"1":{{"schema":{SCHEMA_VERSION}}}}},"index":{{"1":{index.to_json_text()}}}}}'
        write_atomic(self._index_path, text.encode("utf-8"))
        self._index = index
        self._index_stamp = self._stamp()

    def _rebuild_index(self) -> PaperIndex:
        """Rebuild from the shards. Topic memberships are lost; the next sync restores them."""
        entries = {
            p.id: IndexEntry(p.version, p.published[:10], [])
            for shard in self.shards()
            for p in self._read_shard_papers(shard, index=None)
        }
        index = PaperIndex.build(entries)
        self._write_index(index)
        return index

    # --- papers --------------------------------------------------------------------------------

    def _shard_path(self, shard: str) -> Path:
        return self.data_dir / "papers" / f"{shard}.json"

    def shards(self) -> list[str]:
        """Shard names, newest arXiv month first."""
        try:
            names = [p.stem for p in (self.data_dir / "papers").glob("*.json") if not p.name.endswith(".search.json")]
        except OSError:
            return []
        return sorted(names, key=_shard_sort_key, reverse=True)

    def _read_shard_docs(self, shard: str) -> dict[str, dict]:
        path = self._shard_path(shard)
        try:
            data = read_json(path)
        except CorruptFileError as error:
            aside = move_aside(path)
            self.warnings.append(f"{error}: moved to {aside.name}; its papers are fetched again at the next sync")
            return {}
        docs = data.get("papers", {}) if data else {}
        return {doc["id"]: doc for doc in docs.values()}

    def _read_shard_papers(self, shard: str, index: PaperIndex | None) -> list[Paper]:
        papers = []
        for pid, doc in self._read_shard_docs(shard).items():
            if index is None or pid in index:  # a paper written just before a crash, not yet indexed
                try:
                    papers.append(Paper.from_json(doc))
                except (KeyError, TypeError, ValueError):
                    self.warnings.append(f"papers/{shard}.json: skipped an unreadable record ({pid})")
        return papers

    def load_papers(self, shards: Iterable[str] | None = None) -> dict[str, Paper]:
        """Full records of the cached papers (all shards unless told), keyed by id."""
        index = self._load_index()
        papers = {
            paper.id: paper
            for shard in (self.shards() if shards is None else shards)
            for paper in self._read_shard_papers(shard, index)
        }
        if shards is None:
            lost = [pid for pid in index if pid not in papers]
            if lost:
                self._forget(lost)
        return papers

    # --- derived search texts: papers/YYMM.NN.search.json beside each shard ----------------------
    # The store keeps them opaque (the core layer builds them) and trusts them only while they are
    # at least as new as their shard: a sync that rewrites a shard makes its texts stale.

    def _search_path(self, shard: str) -> Path:
        return self.data_dir / "papers" / f"{shard}.search.json"

    def search_texts(self, shard: str) -> dict[str, str] | None:
        """The shard's saved search texts by paper id, or None when missing, stale or damaged."""
        path = self._search_path(shard)
        try:
            if path.stat().st_mtime_ns < self._shard_path(shard).stat().st_mtime_ns:
                return None
            data = read_json(path)
        except (OSError, StoreError):
            return None
        return next(iter(data.get("texts", {}).values()), None) if data else None

    def save_search_texts(self, shard: str, texts: dict[str, str]) -> None:
        """Save a shard's search texts (a cache: failing to write one is not an error)."""
        try:
            with self._locked("saving search texts"):
                write_json_atomic(self._search_path(shard), {"meta": {"1": {"schema": SCHEMA_VERSION}}, "texts": {"1": texts}})
        except StoreError:
            pass

    def has_paper(self, paper_id: str) -> bool:
        """Whether the cache holds this paper, reading only its small shard file (not the index)."""
        return paper_id in self._read_shard_docs(shard_of(paper_id))

    def _forget(self, ids: list[str]) -> None:
        """Drop index rows whose records are gone (a damaged shard), so the next sync refetches them."""
        with self._locked("repairing the index"):
            entries = self._load_index(force=True).entries()
            for pid in ids:
                entries.pop(pid, None)
            self._write_index(PaperIndex.build(entries))

    def save_papers(self, papers: Iterable[Paper], topic: str | None = None) -> SaveResult:
        """Store papers (one copy each; a newer version replaces an older one) and record that
        `topic`'s query returned them. Shards first, then the index that makes them visible."""
        by_shard: dict[str, list[Paper]] = {}
        for paper in papers:
            by_shard.setdefault(shard_of(paper.id), []).append(paper)
        result = SaveResult()
        with self._locked("saving papers"):
            index = self._load_index()  # re-read only if another process wrote it
            changes: dict[str, tuple[int, int, str | None]] = {}
            for shard, group in by_shard.items():
                docs = self._read_shard_docs(shard)
                for paper in group:
                    position = index.position(paper.id)
                    known = changes[paper.id][0] if paper.id in changes else (
                        index.versions[position] if position is not None else None
                    )
                    if known is None or paper.id not in docs or paper.version >= known:
                        if known is None:
                            result.new += 1
                        elif paper.version > known:
                            result.updated += 1
                        if known is None or paper.id not in docs or paper.version > known:
                            result.changed_ids.append(paper.id)
                        docs[paper.id] = paper.to_json()
                    day = date.fromisoformat(paper.published[:10]).toordinal()
                    changes[paper.id] = (max(known or 0, paper.version), day, topic)
                write_json_atomic(
                    self._shard_path(shard),
                    {"meta": {"1": {"schema": SCHEMA_VERSION}}, "papers": {str(i + 1): d for i, d in enumerate(docs.values())}},
                )
            self._write_index(index.with_changes(changes))
        return result

    def __repr__(self) -> str:
        return f"Store({os.fspath(self.data_dir)!r})"
