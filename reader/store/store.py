"""The cache in a data directory, split so that each kind of write stays cheap.

    user.json        topics, read/starred/hidden marks, settings (small: a key press rewrites only this)
    user.json.bak    its copy, rewritten after it on every change: damage to either loses nothing
                     (see mirrored.py)
    library.json     tags, notes and citation keys, mirrored the same way (+ .bak): a file of
                     their own, so a star never rewrites the notes
    sync.json        when each topic was last synced, arXiv's total for it, the spans of time its
                     cache holds whole (syncstate.py); cached counts of all new arXiv papers
    index.json       every paper's id, version, v1 day and topics, as columns in display order
                     (what counts, the chart and the list need, without loading any paper)
    papers/YYMM.NN.json  the full records, one file per thousand arXiv ids (`2609.12345` lives in
                     `2609.12.json`), written only by sync: small files load and save in
                     milliseconds, so neither a sync nor the app's loader holds the GIL for long

Every file is a TinyDB database written atomically (see files.py), and checked on every read
(schema.py): a file that is valid JSON of the wrong shape is handled as damaged. The big files
are read and written whole, not document by document: TinyDB rewrites the whole file on each
operation, which is fine for sync.json and ruinous for 100,000 papers.
"""

from __future__ import annotations

import os
import re
from array import array
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from tinydb import Query

from reader.core.sanitize import INVISIBLE_UTF8
from reader.core.text import plural
from reader.errors import StoreError, StoreLockedError
from reader.models import Paper
from reader.packed_ids import PackedIds
from reader.paper_index import ARRIVED_TYPE, VERSION_TYPE, IndexEntry, PaperIndex
from reader.store import index_columns, index_log
from reader.store.files import (
    INDEX_BYTES,
    CorruptFileError,
    Stamp,
    encode_json,
    file_lock,
    find_document,
    find_documents,
    move_aside,
    parse_json,
    read_file,
    read_json,
    write_atomic,
    write_json_atomic,
)
from reader.store.journal import apply_journals
from reader.store.library import LIBRARY_FILES, LibraryStateMethods, library_file
from reader.store.listing import LEFTOVER, own_files, remove_leftovers
from reader.store.mirrored import MirroredFile
from reader.store.schema import (
    ShapeError,
    check_index,
    check_index_order,
    check_search_texts,
    index_document,
    is_record,
    log_token,
    log_token_at_head,
    without_invisible_text,
)
from reader.store.syncstate import SyncStateMethods
from reader.store.user import UserStateMethods, now_ms
from reader.store.userstate import UserDoc
from reader.userfiles import open_regular, read_regular

SCHEMA_VERSION = 1  # of the paper cache's files
SHARD_SLICE = 200  # records encoded by one call when a shard is written
LOCK_WAIT_SECONDS = 10.0
HEAD_BYTES = 256  # of index.json: its meta, with the log's token
FEW_RECORDS = 64  # of a shard's ~1,000: decoded one by one (each a search of the shard's bytes)


def shard_of(arxiv_id: str) -> str:
    """The id's month and thousand: `2609.12345` -> `2609.12`, `hep-th/9901001` -> `9901.0`."""
    if "/" in arxiv_id:
        number = arxiv_id.split("/", 1)[1]
        return f"{number[:4]}.{number[4]}"
    month, _, number = arxiv_id.partition(".")
    return f"{month}.{number[:-3]}"


_IndexFileStamp = tuple[int, int] | None  # modification time (ns) and size; None: no file
IndexStamp = tuple[_IndexFileStamp, _IndexFileStamp]  # index.json's and index.log's


def index_stamp(data_dir: Path) -> IndexStamp:
    """What the paper index was read from: index.json and its log (index_log.py) as they are."""
    return _file_stamp(data_dir / "index.json"), _file_stamp(data_dir / "index.log")


def _file_stamp(path: Path) -> _IndexFileStamp:
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return stat.st_mtime_ns, stat.st_size


# papers/: a shard's records (what shard_of names them), and beside them reader's other files:
# search texts, features, a damaged file moved aside, a write's temporary file.
_SHARD_FILE = re.compile(r"(?P<shard>\d{4}\.\d+)\.json")
_SHARD_OTHERS = re.compile(rf"\d{{4}}\.\d+\.(?:search\.json|stems\.json|features|json\.damaged-[\d-]+)|{LEFTOVER.pattern}")


def _shard_sort_key(shard: str) -> str:
    return ("19" if shard >= "90" else "20") + shard


# What a data directory holds: a directory with other files and none of these is not one.
OWN_NAMES = (
    frozenset(
        {
            "user.json",
            "user.json.bak",
            "sync.json",
            "index.json",
            "index.log",
            "index.columns",
            "papers",
            "keymap.toml",
            ".lock",
            ".user.lock",
            ".sync.lock",
        }
    )
    | LIBRARY_FILES
)


def _refuse_foreign_directory(data_dir: Path) -> None:
    """A mistyped --data-dir (`/`, a home or project folder) must not fill it with cache files."""
    try:
        names = {entry.name for entry in os.scandir(data_dir)}
    except (FileNotFoundError, NotADirectoryError):
        return  # created below (or refused there, with the system's reason)
    except OSError as error:
        raise StoreError(f"cannot read the data directory {data_dir}: {error.strerror}") from None
    if names and not names & OWN_NAMES:
        raise StoreError(f"{data_dir} is not a reader data directory (it holds other files): give a new or empty directory")


# Told of a shard just written: its name, every record it now holds (id -> JSON), the papers
# written into it (new or replaced), and its file's stat before (None: it did not exist).
ShardWritten = Callable[[str, dict[str, dict], list[Paper], "os.stat_result | None"], None]


@dataclass(slots=True)
class SaveResult:
    new: int = 0
    updated: int = 0
    changed_ids: list[str] = field(default_factory=list)  # new or newer records


class Store(UserStateMethods, LibraryStateMethods, SyncStateMethods):
    """One data directory. Safe to use from several processes at once: each write takes a short
    lock and re-reads what it changes, so a `reader star` beside a running app loses nothing."""

    def __init__(self, data_dir: Path, *, check_user_files: bool = True):
        """`check_user_files=False` is for the app's helper processes (sync, ranking), which
        touch papers only: the app's own open checked and repaired user state, and a helper
        taking its locks to do it again would only delay a star, with nobody to read a warning."""
        self.data_dir = Path(data_dir)
        self.warnings: list[str] = []  # what was repaired on the way, for the user to read
        _refuse_foreign_directory(self.data_dir)
        try:
            (self.data_dir / "papers").mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StoreError(f"cannot create the data directory {self.data_dir}: {error.strerror}") from None
        self._sync_path = self.data_dir / "sync.json"
        self._index_path = self.data_dir / "index.json"
        self._log_path = self.data_dir / "index.log"
        self._columns_path = self.data_dir / "index.columns"
        self._lock_path = self.data_dir / ".lock"  # papers, index, sync state
        self._index: PaperIndex | None = None
        self._index_stamp: IndexStamp | None = None
        self._log_token: str | None = None  # of the log following the loaded index.json
        self._log_offset = 0  # bytes of the log taken in
        self._log_rows = 0  # rows of the log taken in
        self._appended = 0  # rows this store appended to the log (settle_index)
        self._order: PaperIndex | None = None  # index_order's, while index.json stays as it was
        self._papers_swept = False  # papers/ cleared of a killed write's temporary files
        self._order_stamp: IndexStamp | None = None
        # User state has a lock of its own: a star never waits for a sync's save of papers.
        self._user = MirroredFile(
            self.data_dir / "user.json",
            parse=UserDoc.parse,
            dump=UserDoc.dump,
            copy=UserDoc.copy,
            lock=lambda what: file_lock(self.data_dir / ".user.lock", wait=LOCK_WAIT_SECONDS, what=what),
            warn=self.warnings.append,
            holds="topics, stars, read marks and settings",
        )
        self._library = library_file(self.data_dir, self.warnings.append, LOCK_WAIT_SECONDS)  # tags, notes
        if check_user_files:
            self._user.check()
            self._library.check()
        self._read_sync("topics")  # a damaged sync.json is moved aside at once
        if check_user_files:
            apply_journals(self)  # marks a quitting app could not save

    def on_own_write(self, writing: Callable[[str, Stamp | None], AbstractContextManager[object]]) -> None:
        """Each change of user.json or library.json this store saves is made inside
        `writing(file name, its stamp before)` (with the file's lock held): whoever watches for
        other processes' changes knows these are its own."""
        self._user.on_write = lambda before: writing(self._user.path.name, before)
        self._library.on_write = lambda before: writing(self._library.path.name, before)

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
            self._user.update("removing a topic", lambda doc: doc.remove_topic(topic.name))
            self._sync_db().table("topics").remove(Query().name == topic.name)
            entries = self._load_index(force=True).entries()
            for entry in entries.values():
                if topic.name in entry.topics:
                    entry.topics.remove(topic.name)
            self._write_index(PaperIndex.build(entries))
        return topic

    def add_to_topic(self, name: str, ids: Iterable[str]) -> int:
        """Make cached papers members of a topic (those the index holds; their records, versions
        and arrival times stay as they are). Returns how many were not members before."""
        with self._locked("filling a topic"):
            index = self._load_index(force=True)
            bit = index.bit(name)  # 0 while the topic has no papers
            joining: dict[str, tuple[int, int, str | None]] = {
                pid: (index.versions[i], index.days[i], name)
                for pid in dict.fromkeys(ids)
                if (i := index.position(pid)) is not None and not index.masks[i] & bit
            }
            if joining:
                self._write_index(index.with_changes(joining))
        return len(joining)

    # --- the paper index -----------------------------------------------------------------------

    def _stamp(self) -> IndexStamp:
        return index_stamp(self.data_dir)

    def index(self) -> PaperIndex:
        """Every cached paper, newest first (re-read when another process changed it)."""
        return self._load_index()

    def index_order(self) -> PaperIndex:
        """The index's topics, ids, days and topic masks alone (versions and arrivals left
        empty): what a listing filters on and finds papers by, read several times faster than
        index(); from index.columns, in part (ids packed), when they are current and no log
        follows. The whole index when it is loaded already, or when the file is not in the
        store's own form (or is damaged)."""
        stamp = self._stamp()
        if self._index is None or stamp != self._index_stamp:
            if self._order is not None and stamp == self._order_stamp:
                return self._order
            if (made_from := self._columns_current()) is not None:
                if self._read_log():  # the log's papers folded into the whole index, read as fast
                    return self._load_index()
                order = index_columns.read_order(self._columns_path, *made_from)
                if order is not None:  # read in part: no object per paper
                    self._order, self._order_stamp = order, stamp
                    return order
            try:
                found = check_index_order(read_regular(self._index_path, INDEX_BYTES).decode("utf-8"))
            except (OSError, UnicodeDecodeError):  # (not a file to read: the whole read below says so)
                found = None
            if found is not None:
                token, order = found
                log = self._read_log()
                rows = index_log.folded(index_log.entries(log, token)) if token is not None else {}
                if rows:  # the log's papers in their places (versions and arrivals as before)
                    order.versions = array(VERSION_TYPE, bytes(4 * len(order)))
                    order = order.with_rows(rows)
                    order.versions, order.arrived = array(VERSION_TYPE), array(ARRIVED_TYPE, bytes(8 * len(order)))
                self._order, self._order_stamp = order, stamp
                return order
        return self._load_index()

    def _load_index(self, force: bool = False) -> PaperIndex:
        stamp = self._stamp()
        if self._index is not None and not force and stamp == self._index_stamp:
            return self._index
        if self._index is not None and not force and self._index_stamp is not None and stamp[0] == self._index_stamp[0]:
            # index.json as it was: only the log grew (another process's save). Its new lines.
            log = self._read_log()
            if len(log) >= self._log_offset:
                self._index_stamp = stamp
                return self._take_log(log[self._log_offset :], self._index)
        token, source = self._index_head()
        index = index_columns.read(self._columns_path, token, source) if token is not None and source is not None else None
        if index is None:
            try:
                data = self._read_index_json()
                index = check_index(data) if data else PaperIndex()
            except (CorruptFileError, ShapeError) as error:
                problem = str(error) if isinstance(error, CorruptFileError) else f"index.json is damaged ({error})"
                aside = move_aside(self._index_path)
                self.warnings.append(f"{problem}: moved to {aside.name}; rebuilt it from the cached papers")
                return self._rebuild_index()
            token = log_token(data) if data else None
            if token is not None and source is not None:  # for the next reader (missing, or made for another index.json)
                index_columns.write(self._columns_path, token, source, index)
        self._order = None  # the whole index answers from now on
        self._log_token, self._log_offset, self._log_rows = token, 0, 0
        self._index_stamp = stamp
        return self._take_log(self._read_log(), index)

    def _index_head(self) -> tuple[str | None, index_columns.Source | None]:
        """The log token index.json names, from its first bytes (None: no file, or not one
        written with a log), and its (modification time, size): what index.columns must name."""
        try:
            with open_regular(self._index_path, INDEX_BYTES) as file:
                token = log_token_at_head(file.read(HEAD_BYTES))
        except OSError:
            token = None
        return token, _file_stamp(self._index_path)

    def _columns_current(self) -> tuple[str, index_columns.Source] | None:
        """index.json's token and (modification time, size) when index.columns was made from it
        as it is (its header names them), else None."""
        token, source = self._index_head()
        if token is None or source is None or index_columns.made_from(self._columns_path) != (token, source):
            return None
        return token, source

    def _read_log(self) -> bytes:
        try:
            raw = read_file(self._log_path, INDEX_BYTES)
        except CorruptFileError as error:
            aside = move_aside(self._log_path)
            self.warnings.append(f"{error}: moved to {aside.name}; the papers it listed are indexed again at the next sync")
            return b""
        return raw or b""

    def _take_log(self, raw: bytes, index: PaperIndex) -> PaperIndex:
        """`index` with the log's whole lines in `raw` (read from _log_offset on) taken in: the
        loaded index from now on."""
        whole = raw[: raw.rfind(b"\n") + 1]  # a line being written is read next time
        rows = index_log.folded(index_log.entries(whole, self._log_token)) if self._log_token is not None else {}
        self._index = index.with_rows(rows) if rows else index
        self._log_offset += len(whole)
        self._log_rows += len(rows)
        return self._index

    def _read_index_json(self) -> dict | None:
        """index.json's document, decoded a column at a time when it is in the store's own form
        (a worker reading it then never holds the GIL for long), else whole."""
        raw = read_file(self._index_path, INDEX_BYTES)
        if raw is None:
            return None
        try:
            document = index_document(raw.decode("utf-8"))
        except UnicodeDecodeError:
            document = None
        return document if document is not None else parse_json(raw, self._index_path)

    def _write_index(self, index: PaperIndex) -> None:
        """index.json written whole, following a new log: the old log's lines are ignored from
        now on (should the log's removal not happen), and it is removed."""
        token = index_log.new_token()
        text = f'{{"meta":{{"1":{{"schema":{SCHEMA_VERSION},"log":"{token}"}}}},"index":{{"1":{index.to_json_text()}}}}}'
        write_atomic(self._index_path, text.encode("utf-8"))
        if (packed := PackedIds.pack(index.ids)) is not None:
            index.ids = packed  # kept as a start reads it: no string per paper (the same ids: its id table holds)
        source = _file_stamp(self._index_path)
        if source is not None:
            index_columns.write(self._columns_path, token, source, index)
        try:
            self._log_path.unlink(missing_ok=True)
        except OSError:
            pass  # its lines follow another index.json: ignored
        self._index, self._order = index, None
        self._log_token, self._log_offset, self._log_rows = token, 0, 0
        self._index_stamp = self._stamp()

    def settle_index(self) -> None:
        """Write index.json whole (and its columns) when this store appended to the log: what a
        sync does once at its end, so that starts and listings read index.columns alone rather
        than folding the log in (tens of thousands of rows at 1,000,000 papers took ~0.5 s).
        Reads nothing when this store saved nothing."""
        if not self._appended:
            return
        with self._locked("writing the paper index"):
            index = self._load_index()
            if self._log_rows:
                self._write_index(index)
        self._appended = 0

    def _save_changes(self, index: PaperIndex, changes: dict[str, tuple[int, int, str | None]], arrived: int) -> None:
        """Make `index` (the loaded one with `changes`) the saved one: the changes appended to the
        log, a few hundred bytes per paper; index.json written whole instead when the log would
        hold more than one row per index_log.SHARE papers (and index_log.MIN_ROWS), or when it
        follows no log yet (written before there was one)."""
        if not changes:
            return
        if self._log_token is None or self._log_rows + len(changes) > max(index_log.MIN_ROWS, len(index) // index_log.SHARE):
            self._write_index(index)
            return
        try:
            index_log.append(self._log_path, index_log.encode(self._log_token, changes, arrived))
        except OSError as error:
            raise StoreError(f"cannot write {self._log_path}: {error.strerror}") from None
        self._index, self._order = index, None
        self._log_rows += len(changes)
        self._appended += len(changes)
        self._log_offset = self._log_path.stat().st_size
        self._index_stamp = self._stamp()

    def _rebuild_index(self) -> PaperIndex:
        """Rebuild from the shards. Topic memberships are lost; the next sync restores them."""
        entries = {
            p.id: IndexEntry(p.version, p.published[:10], []) for shard in self.shards() for p in self._read_shard_papers(shard, index=None)
        }
        index = PaperIndex.build(entries)
        self._write_index(index)
        return index

    # --- papers --------------------------------------------------------------------------------

    def _shard_path(self, shard: str) -> Path:
        return self.data_dir / "papers" / f"{shard}.json"

    def shard_file(self, shard: str) -> Path:
        """Where a shard's records live (derived indexes read it and stamp what they read)."""
        return self._shard_path(shard)

    def _shard_stat(self, shard: str) -> os.stat_result | None:
        try:
            return self._shard_path(shard).stat()
        except OSError:
            return None

    def shards(self) -> list[str]:
        """Shard names, newest arXiv month first."""
        try:
            names = [entry.name.removesuffix(".json") for entry in own_files(self.data_dir / "papers", _SHARD_FILE, _SHARD_OTHERS)]
        except OSError:
            return []
        return sorted(names, key=_shard_sort_key, reverse=True)

    def _read_shard_docs(self, shard: str) -> dict[str, dict]:
        """A shard's records by id. A damaged file is moved aside; when only some records are
        damaged, the good ones are written back (the others are fetched at the next sync)."""
        path = self._shard_path(shard)
        try:
            raw = read_file(path)
            if raw is None:
                return {}
            data = parse_json(raw, path)
        except CorruptFileError as error:
            aside = move_aside(path)
            self.warnings.append(f"{error}: moved to {aside.name}; its papers are fetched again at the next sync")
            return {}
        invisible = any(marker in raw for marker in INVISIBLE_UTF8)  # rare: a bytes search spares cleaning every record
        good: dict[str, dict] = {}
        damaged = 0
        for doc in data.get("papers", {}).values():
            if is_record(doc):
                good[doc["id"]] = without_invisible_text(doc) if invisible else doc
            else:
                damaged += 1
        if damaged:
            aside = move_aside(path)
            self._write_shard(shard, good)
            self.warnings.append(
                f"papers/{path.name} had {plural(damaged, 'damaged record')}: moved to {aside.name}; "
                f"kept its {len(good)} good papers (the others are fetched again at the next sync)"
            )
        return good

    def _write_shard(self, shard: str, docs: dict[str, dict]) -> None:
        """The shard as one TinyDB table numbered from 1, encoded a slice of records at a time
        (the same bytes as one json.dumps, which held the GIL ~20 ms for a full shard)."""
        numbered = [(str(i + 1), d) for i, d in enumerate(docs.values())]
        slices = (encode_json(dict(numbered[start : start + SHARD_SLICE]))[1:-1] for start in range(0, len(numbered), SHARD_SLICE))
        head = encode_json({"meta": {"1": {"schema": SCHEMA_VERSION}}})[:-1]
        if not self._papers_swept:  # a killed sync's half-written shards: once, before the first write
            self._papers_swept = True
            remove_leftovers(self.data_dir / "papers")
        write_atomic(self._shard_path(shard), head + b',"papers":{' + b",".join(slices) + b"}}")

    def _read_shard_papers(self, shard: str, index: PaperIndex | None) -> list[Paper]:
        return [
            Paper.from_json(doc)
            for pid, doc in self._read_shard_docs(shard).items()
            # Not a paper written just before a crash, not yet indexed; found by its v1 day (a
            # binary search: the first cards are read so, before any id table is made).
            if index is None or index.find(pid, doc["published"]) is not None
        ]

    def load_papers(self, shards: Iterable[str] | None = None) -> dict[str, Paper]:
        """Full records of the cached papers (all shards unless told), keyed by id."""
        index = self._load_index()
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
            docs = find_documents(self._shard_path(shard), "id", wanted) if len(wanted) <= FEW_RECORDS else {}
            if all(pid in docs and is_record(docs[pid]) and self._indexed(pid, docs[pid]["published"]) for pid in wanted):
                found.update((pid, Paper.from_json(without_invisible_text(docs[pid]))) for pid in wanted)
            else:  # many, or one missing or odd: the whole shard, checked
                papers = self.load_papers([shard])
                found.update((pid, papers[pid]) for pid in wanted if pid in papers)
        return found

    def load_paper(self, paper_id: str) -> Paper | None:
        """One paper's full record, decoding only it when its shard is sound (the detail view)."""
        doc = find_document(self._shard_path(shard_of(paper_id)), "id", paper_id)
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
        if self._index is None:  # (a command: the index's order and days answer, read in part)
            return self.index_order().find(paper_id, published) is not None
        if self._index.find(paper_id, published) is not None:
            return True
        return self._load_index().find(paper_id, published) is not None

    def cached_versions(self, ids: Iterable[str]) -> dict[str, int]:
        """The cached version of each of these papers that the cache holds, reading only their
        small shard files (not the index)."""
        wanted: dict[str, list[str]] = {}
        for pid in ids:
            wanted.setdefault(shard_of(pid), []).append(pid)
        found: dict[str, int] = {}
        for shard, pids in wanted.items():
            docs = self._read_shard_docs(shard)
            found.update((pid, docs[pid]["version"]) for pid in pids if pid in docs)
        return found

    def has_paper(self, paper_id: str) -> bool:
        """Whether the cache holds this paper, reading only its small shard file (not the index)."""
        return paper_id in self.cached_versions([paper_id])

    # --- derived search texts: papers/YYMM.NN.search.json beside each shard, and their stemmed
    # form, YYMM.NN.stems.json (a file of its own: the scan reads only it, the ranking only the
    # texts). The store keeps them opaque (the core layer builds them) and trusts them only while
    # they are at least as new as their shard: a sync that rewrites a shard makes them stale.

    def _search_path(self, shard: str, stemmed: bool = False) -> Path:
        return self.data_dir / "papers" / f"{shard}.{'stems' if stemmed else 'search'}.json"

    def search_texts(self, shard: str, valid_text: Callable[[str], bool] | None = None, *, stemmed: bool = False) -> dict[str, str] | None:
        """The shard's saved search texts by paper id (`stemmed`: their stemmed form), or None
        when missing, stale or damaged (a damaged file is moved aside: the caller builds the
        texts again). `valid_text` says whether one text has the form its builder gives it."""
        path = self._search_path(shard, stemmed)
        try:
            if path.stat().st_mtime_ns < self._shard_path(shard).stat().st_mtime_ns:
                return None
            return check_search_texts(read_json(path) or {}, valid_text)
        except OSError:
            return None
        except (CorruptFileError, ShapeError) as error:
            problem = str(error) if isinstance(error, CorruptFileError) else f"{path.name} is damaged ({error})"
            try:
                self.warnings.append(f"{problem}: moved to {move_aside(path).name}; its search texts are built again")
            except StoreError:
                pass
            return None
        except StoreError:
            return None

    def save_search_texts(self, shard: str, texts: dict[str, str], *, stemmed: bool = False) -> None:
        """Save a shard's search texts, or their stemmed form (a cache: failing to write one is
        not an error)."""
        try:
            with self._locked("saving search texts"):
                write_json_atomic(self._search_path(shard, stemmed), {"meta": {"1": {"schema": SCHEMA_VERSION}}, "texts": {"1": texts}})
        except StoreError:
            pass

    def _forget(self, ids: list[str]) -> None:
        """Drop index rows whose records are gone (a damaged shard), so the next sync refetches them."""
        with self._locked("repairing the index"):
            entries = self._load_index(force=True).entries()
            for pid in ids:
                entries.pop(pid, None)
            self._write_index(PaperIndex.build(entries))

    def save_papers(
        self, papers: Iterable[Paper], topic: str | None = None, *, news: bool = True, on_shard: ShardWritten | None = None
    ) -> SaveResult:
        """Store papers (one copy each; a newer version replaces an older one) and record that
        `topic`'s query returned them. Shards first, then the index that makes them visible.
        Papers new to the cache are stamped with the time they arrived, but those of a topic's
        first sync (the topic's past, not news) and those that are not `news` (papers the user
        brought in: `reader import`) with 0. `on_shard` is told of each shard written, under the
        lock (what is derived from a shard, made while no other process can change it)."""
        arrived = 0 if not news or (topic is not None and self.last_sync(topic) is None) else now_ms()
        by_shard: dict[str, list[Paper]] = {}
        for paper in papers:
            by_shard.setdefault(shard_of(paper.id), []).append(paper)
        result = SaveResult()
        with self._locked("saving papers"):
            index = self._load_index()  # re-read only if another process wrote it
            changes: dict[str, tuple[int, int, str | None]] = {}
            for shard, group in by_shard.items():
                before = self._shard_stat(shard)
                docs = self._read_shard_docs(shard)
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
                self._write_shard(shard, docs)
                if on_shard is not None:
                    on_shard(shard, docs, written, before)
            self._save_changes(index.with_changes(changes, arrived), changes, arrived)
        return result

    def __repr__(self) -> str:
        return f"Store({os.fspath(self.data_dir)!r})"
