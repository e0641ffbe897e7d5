"""The cache in a data directory, split so that each kind of write stays cheap. Store is the
facade: each file has one owner, which it holds and hands what that owner needs.

    user.json        topics, read/starred/hidden marks, settings (small: a key press rewrites only
                     this): UserState, user_state.py
    user.json.bak    its copy, rewritten after it on every change: damage to either loses nothing
                     (see mirrored.py)
    library.json     tags, notes and citation keys, mirrored the same way (+ .bak): a file of
                     their own, so a star never rewrites the notes (LibraryState, library_state.py)
    sync.json        when each topic was last synced, arXiv's total for it, the spans of time its
                     cache holds whole; cached counts of all new arXiv papers (SyncFile, sync_file.py)
    index.json       every paper's id, version, v1 day and topics, as columns in display order
                     (what counts, the chart and the list need, without loading any paper), with
                     index.log and index.columns (IndexFiles, index_files.py)
    papers/YYMM.NN.json  the full records, one file per thousand arXiv ids (`2609.12345` lives in
                     `2609.12.json`), written only by sync: small files load and save in
                     milliseconds, so neither a sync nor the app's loader holds the GIL for long
                     (ShardFiles, shard_files.py)

Every file is a TinyDB database written atomically (see files.py), and checked on every read
(schema.py): a file that is valid JSON of the wrong shape is handled as damaged. The big files
are read and written whole, not document by document: TinyDB rewrites the whole file on each
operation, which is fine for sync.json and ruinous for 100,000 papers.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from reader.cache_index import CacheIndex, IndexEntry
from reader.errors import StoreError, StoreLockedError
from reader.models import Paper
from reader.store.data_dir import refuse_foreign_directory, shard_of
from reader.store.files import Stamp, file_lock, find_document, find_documents
from reader.store.index_files import IndexFiles
from reader.store.journal import apply_journals
from reader.store.library_doc import LibraryDoc
from reader.store.library_state import LibraryState, library_file
from reader.store.mirrored import MirroredFile
from reader.store.schema import is_record, without_invisible_text
from reader.store.shard_files import ShardFiles
from reader.store.sync_file import SyncFile
from reader.store.user_doc import Marks, Topic, UserDoc, Watch
from reader.store.user_state import UserState, now_ms

LOCK_WAIT_SECONDS = 10.0
FEW_RECORDS = 64  # of a shard's ~1,000: decoded one by one (each a search of the shard's bytes)


# Told of a shard just written: its name, every record it now holds (id -> JSON), the papers
# written into it (new or replaced), and its file's stat before (None: it did not exist).
ShardWritten = Callable[[str, dict[str, dict], list[Paper], "os.stat_result | None"], None]


@dataclass(slots=True)
class SaveResult:
    new: int = 0
    updated: int = 0
    changed_ids: list[str] = field(default_factory=list)  # new or newer records


class Store:
    """One data directory. Safe to use from several processes at once: each write takes a short
    lock and re-reads what it changes, so a `reader star` beside a running app loses nothing."""

    def __init__(self, data_dir: Path, *, check_user_files: bool = True):
        """`check_user_files=False` is for the app's helper processes (sync, ranking), which
        touch papers only: the app's own open checked and repaired user state, and a helper
        taking its locks to do it again would only delay a star, with nobody to read a warning."""
        self.data_dir = Path(data_dir)
        self.warnings: list[str] = []  # what was repaired on the way, for the user to read
        refuse_foreign_directory(self.data_dir)
        try:
            (self.data_dir / "papers").mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StoreError(f"cannot create the data directory {self.data_dir}: {error.strerror}") from None
        self._lock_path = self.data_dir / ".lock"  # papers, index, sync state
        self.shard_files = ShardFiles(self.data_dir / "papers", self._locked, self.warnings.append)
        self.index_files = IndexFiles(self.data_dir, self._locked, self.warnings.append, self._entries_from_shards)
        # User state has a lock of its own: a star never waits for a sync's save of papers.
        user_file = MirroredFile(
            self.data_dir / "user.json",
            parse=UserDoc.parse,
            dump=UserDoc.dump,
            copy=UserDoc.copy,
            lock=lambda what: file_lock(self.data_dir / ".user.lock", wait=LOCK_WAIT_SECONDS, what=what),
            warn=self.warnings.append,
            holds="topics, stars, read marks and settings",
        )
        self.user_state = UserState(user_file, self.index)
        self.library_state = LibraryState(library_file(self.data_dir, self.warnings.append, LOCK_WAIT_SECONDS))  # tags, notes
        self.sync_file = SyncFile(self.data_dir / "sync.json", self._locked, self.user_state.topics, self.warnings.append)
        if check_user_files:
            self.user_state.file.check()
            self.library_state.file.check()
        self.sync_file.check()
        if check_user_files:
            apply_journals(self)  # marks a quitting app could not save

    def on_own_write(self, writing: Callable[[str, Stamp | None], AbstractContextManager[object]]) -> None:
        """Each change of user.json or library.json this store saves is made inside
        `writing(file name, its stamp before)` (with the file's lock held): whoever watches for
        other processes' changes knows these are its own."""
        for file in (self.user_state.file, self.library_state.file):
            file.on_write = lambda before, name=file.path.name: writing(name, before)

    def _locked(self, what: str):
        return file_lock(self._lock_path, wait=LOCK_WAIT_SECONDS, what=what)

    def sync_lock(self, wait: float = 0):
        """Held for a whole sync: a second sync of the same data directory refuses (at once, or
        after `wait` seconds)."""
        return file_lock(self.data_dir / ".sync.lock", wait=wait, what="cannot sync")

    def sync_ended(self, wait: float) -> bool:
        """Whether no sync holds the data directory, waiting up to `wait` seconds for the one
        running to end (the lock is let go of at once)."""
        try:
            with self.sync_lock(wait):
                return True
        except StoreLockedError:
            return False

    def remove_topic(self, name: str):
        """Remove a topic and its memberships; its papers, and every mark on them, stay."""
        topic = self.topic(name)
        if topic is None:
            raise StoreError(f"no topic named {name!r}")
        with self._locked("removing a topic"):
            self.user_state.file.update("removing a topic", lambda doc: doc.remove_topic(topic.name))
            self.sync_file.forget_topic(topic.name)
            entries = self.index_files.load(force=True).entries()
            for entry in entries.values():
                if topic.name in entry.topics:
                    entry.topics.remove(topic.name)
            self.index_files.write(CacheIndex.build(entries))
        return topic

    def add_to_topic(self, name: str, ids: Iterable[str]) -> int:
        """Make cached papers members of a topic (those the index holds; their records, versions
        and arrival times stay as they are). Returns how many were not members before."""
        with self._locked("filling a topic"):
            index = self.index_files.load(force=True)
            bit = index.bit(name)  # 0 while the topic has no papers
            joining: dict[str, tuple[int, int, str | None]] = {
                pid: (index.versions[i], index.days[i], name)
                for pid in dict.fromkeys(ids)
                if (i := index.position(pid)) is not None and not index.masks[i] & bit
            }
            if joining:
                self.index_files.write(index.with_changes(joining))
        return len(joining)

    # --- the paper index (index_files.py) ------------------------------------------------------

    def index(self) -> CacheIndex:
        """Every cached paper, newest first (re-read when another process changed it)."""
        return self.index_files.load()

    def index_order(self) -> CacheIndex:
        """The index's topics, ids, days and topic masks alone (versions and arrivals left
        empty): what a listing filters on and finds papers by, read several times faster than
        index() (IndexFiles.order)."""
        return self.index_files.order()

    def settle_index(self) -> None:
        """Write index.json whole when this store appended to the log (IndexFiles.settle): what a
        sync does once at its end."""
        self.index_files.settle()

    def _entries_from_shards(self) -> dict[str, IndexEntry]:
        """Every record's index entry, for an index rebuilt from the shards (topics are lost)."""
        return {
            p.id: IndexEntry(p.version, p.published[:10], []) for shard in self.shards() for p in self._read_shard_papers(shard, index=None)
        }

    # --- papers (shard_files.py) -----------------------------------------------------------------

    def shard_file(self, shard: str) -> Path:
        """Where a shard's records live (derived indexes read it and stamp what they read)."""
        return self.shard_files.path(shard)

    def shards(self) -> list[str]:
        """Shard names, newest arXiv month first."""
        return self.shard_files.names()

    def search_texts(self, shard: str, valid_text: Callable[[str], bool] | None = None, *, stemmed: bool = False) -> dict[str, str] | None:
        """The shard's saved search texts (ShardFiles.search_texts), None when missing, stale or damaged."""
        return self.shard_files.search_texts(shard, valid_text, stemmed=stemmed)

    def save_search_texts(self, shard: str, texts: dict[str, str], *, stemmed: bool = False) -> None:
        self.shard_files.save_search_texts(shard, texts, stemmed=stemmed)

    def _read_shard_papers(self, shard: str, index: CacheIndex | None) -> list[Paper]:
        return [
            Paper.from_json(doc)
            for pid, doc in self.shard_files.read_docs(shard).items()
            # Not a paper written just before a crash, not yet indexed; found by its v1 day (a
            # binary search: the first cards are read so, before any id table is made).
            if index is None or index.find(pid, doc["published"]) is not None
        ]

    def load_papers(self, shards: Iterable[str] | None = None) -> dict[str, Paper]:
        """Full records of the cached papers (all shards unless told), keyed by id."""
        index = self.index_files.load()
        papers = {
            paper.id: paper for shard in (self.shards() if shards is None else shards) for paper in self._read_shard_papers(shard, index)
        }
        if shards is None:
            lost = [pid for pid in index if pid not in papers]
            if lost:
                self._forget(lost)
        return papers

    def papers_by_id(self, ids: Iterable[str]) -> dict[str, Paper]:
        """Full records of these papers (those the cache holds), reading only their shards. A
        few of a shard's papers are decoded alone, as for the detail view (an export of 1,031
        starred papers from 100 shards decoded every shard whole: 5 s)."""
        by_shard: dict[str, list[str]] = {}
        for pid in dict.fromkeys(ids):
            by_shard.setdefault(shard_of(pid), []).append(pid)
        found: dict[str, Paper] = {}
        for shard, wanted in by_shard.items():
            docs = find_documents(self.shard_files.path(shard), "id", wanted) if len(wanted) <= FEW_RECORDS else {}
            if all(pid in docs and is_record(docs[pid]) and self._indexed(pid, docs[pid]["published"]) for pid in wanted):
                found.update((pid, Paper.from_json(without_invisible_text(docs[pid]))) for pid in wanted)
            else:  # many, or one missing or odd: the whole shard, checked
                papers = self.load_papers([shard])
                found.update((pid, papers[pid]) for pid in wanted if pid in papers)
        return found

    def load_paper(self, paper_id: str) -> Paper | None:
        """One paper's full record, decoding only it when its shard is sound (the detail view)."""
        doc = find_document(self.shard_files.path(shard_of(paper_id)), "id", paper_id)
        if doc is not None and is_record(doc) and self._indexed(paper_id, doc["published"]):
            return Paper.from_json(without_invisible_text(doc))
        return self.load_papers([shard_of(paper_id)]).get(paper_id)

    def _indexed(self, paper_id: str, published: str) -> bool:
        """Whether the index lists the paper. The index in memory answers when it lists it,
        even if another process wrote a newer one since: a paper once indexed stays indexed
        while its record is there (only a repair unlists papers, those whose records are lost).
        Re-reading 100,000 rows whenever a sync had saved (200-300 ms of a worker's time, the
        app's GIL contended meanwhile) made a star pressed while the detail view read ahead
        wait that long. Found by its v1 date (the record's `published`): no id map is made."""
        loaded = self.index_files.loaded
        if loaded is None:  # (a command: the index's order and days answer, read in part)
            return self.index_order().find(paper_id, published) is not None
        if loaded.find(paper_id, published) is not None:
            return True
        return self.index_files.load().find(paper_id, published) is not None

    def cached_versions(self, ids: Iterable[str]) -> dict[str, int]:
        """The cached version of each of these papers that the cache holds, reading only their
        small shard files (not the index)."""
        wanted: dict[str, list[str]] = {}
        for pid in ids:
            wanted.setdefault(shard_of(pid), []).append(pid)
        found: dict[str, int] = {}
        for shard, pids in wanted.items():
            # A few papers' records found alone (`reader star ID` decoded a whole 1.8 MB shard);
            # one missing or odd: the whole shard, checked.
            docs = find_documents(self.shard_files.path(shard), "id", pids) if len(pids) <= FEW_RECORDS else {}
            if not all(pid in docs and type(docs[pid].get("version")) is int for pid in pids):
                docs = self.shard_files.read_docs(shard)
            found.update((pid, docs[pid]["version"]) for pid in pids if pid in docs)
        return found

    def has_paper(self, paper_id: str) -> bool:
        """Whether the cache holds this paper, reading only its small shard file (not the index)."""
        return paper_id in self.cached_versions([paper_id])

    def _forget(self, ids: list[str]) -> None:
        """Drop index rows whose records are gone (a damaged shard), so the next sync refetches them."""
        with self._locked("repairing the index"):
            entries = self.index_files.load(force=True).entries()
            for pid in ids:
                entries.pop(pid, None)
            self.index_files.write(CacheIndex.build(entries))

    def save_papers(
        self, papers: Iterable[Paper], topic: str | None = None, *, news: bool = True, on_shard: ShardWritten | None = None
    ) -> SaveResult:
        """Store papers (one copy each; a newer version replaces an older one) and record that
        `topic`'s query returned them. ShardFiles first, then the index that makes them visible.
        Papers new to the cache are stamped with the time they arrived, but those of a topic's
        first sync (the topic's past, not news) and those that are not `news` (papers the user
        brought in: `reader import`) with 0. `on_shard` is told of each shard written, under the
        lock (what is derived from a shard, made while no other process can change it)."""
        arrived = 0 if not news or (topic is not None and self.sync_file.last_sync(topic) is None) else now_ms()
        by_shard: dict[str, list[Paper]] = {}
        for paper in papers:
            by_shard.setdefault(shard_of(paper.id), []).append(paper)
        result = SaveResult()
        with self._locked("saving papers"):
            index = self.index_files.load()  # re-read only if another process wrote it
            changes: dict[str, tuple[int, int, str | None]] = {}
            for shard, group in by_shard.items():
                before = self.shard_files.stat(shard)
                docs = self.shard_files.read_docs(shard)
                written: list[Paper] = []
                for paper in group:
                    day = date.fromisoformat(paper.published[:10]).toordinal()
                    position = None if paper.id in changes else index.row(paper.id, day)
                    known = changes[paper.id][0] if paper.id in changes else (index.versions[position] if position is not None else None)
                    if known is None or paper.id not in docs or paper.version >= known:
                        if known is None:
                            result.new += 1
                        elif paper.version > known:
                            result.updated += 1
                        if known is None or paper.id not in docs or paper.version > known:
                            result.changed_ids.append(paper.id)
                        docs[paper.id] = paper.to_json()
                        written.append(paper)
                    changes[paper.id] = (max(known or 0, paper.version), day, topic)
                self.shard_files.write(shard, docs)
                if on_shard is not None:
                    on_shard(shard, docs, written, before)
            self.index_files.save_changes(index.with_changes(changes, arrived), changes, arrived)
        return result

    # --- user.json: topics, watches, marks, visits, settings (user_state.py) ---

    def topics(self) -> list[Topic]:
        return self.user_state.topics()

    def topic(self, name: str) -> Topic | None:
        return self.user_state.topic(name)

    def add_topic(self, name: str, query: str) -> Topic:
        return self.user_state.add_topic(name, query)

    def watches(self) -> list[Watch]:
        return self.user_state.watches()

    def add_watch(self, name: str, query: str) -> Watch:
        return self.user_state.add_watch(name, query)

    def remove_watch(self, name: str) -> Watch:
        return self.user_state.remove_watch(name)

    def marks(self) -> Marks:
        return self.user_state.marks()

    def set_marks(self, ids: Iterable[str], *, read: bool | None = None, starred: bool | None = None, hidden: bool | None = None) -> None:
        self.user_state.set_marks(ids, read=read, starred=starred, hidden=hidden)

    def apply_marks(self, changes: Mapping[str, Mapping[str, bool | None]]) -> None:
        self.user_state.apply_marks(changes)

    def read_versions(self) -> dict[str, int]:
        return self.user_state.read_versions()

    def updated_ids(self) -> set[str]:
        return self.user_state.updated_ids()

    def record_visit(self, key: str) -> None:
        self.user_state.record_visit(key)

    def new_ids(self, topic: str | None = None) -> set[str]:
        return self.user_state.new_ids(topic)

    def setting(self, key: str, default: Any = None) -> Any:
        return self.user_state.setting(key, default)

    def set_setting(self, key: str, value: Any) -> None:
        self.user_state.set_setting(key, value)

    # --- library.json: tags, notes, citation keys (library_state.py) ---

    def library_doc(self) -> LibraryDoc:
        return self.library_state.library_doc()

    def tags(self) -> dict[str, int]:
        return self.library_state.tags()

    def tags_of(self, ids: Iterable[str] | None = None) -> dict[str, tuple[str, ...]]:
        return self.library_state.tags_of(ids)

    def papers_tagged(self, name: str) -> list[str]:
        return self.library_state.papers_tagged(name)

    def set_tags(self, ids: Iterable[str], add: Iterable[str] = (), remove: Iterable[str] = ()) -> dict[str, tuple[str, ...]]:
        return self.library_state.set_tags(ids, add, remove)

    def rename_tag(self, old: str, new: str) -> str:
        return self.library_state.rename_tag(old, new)

    def delete_tag(self, name: str) -> int:
        return self.library_state.delete_tag(name)

    def note(self, paper_id: str) -> str:
        return self.library_state.note(paper_id)

    def notes(self) -> dict[str, str]:
        return self.library_state.notes()

    def set_note(self, paper_id: str, text: str) -> str:
        return self.library_state.set_note(paper_id, text)

    def citation_keys(self, papers: Sequence[Paper], taken: Iterable[str] = ()) -> dict[str, str]:
        return self.library_state.citation_keys(papers, taken)

    def __repr__(self) -> str:
        return f"Store({os.fspath(self.data_dir)!r})"
