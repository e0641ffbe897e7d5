"""The search index: queries answered from SQLite FTS5 files, not by scanning every paper.

    index = SearchIndex.open(data_dir)   # no disk work yet
    index.refresh(store)                 # bring stale shards up to date (cheap when none are)
    index.matching(parse("deep neural", implicit_and=True))   # -> set of ids
    index.ordered(node, order, positions)   # -> the ids of a list that match, in its order
    index.newest(node)                   # -> (id, v1 day) newest first, read as far as taken
    index.cards(ids)                     # -> {id: Card}: what a list shows, ~50 at a time
    index.set_notes(store, notes)        # the user's notes: `note:` and plain words search them
    index.close()

Files: `DATA_DIR/search/partN.sqlite3` (N < PARTITIONS; a shard's partition is fixed by its
name). The JSON shards stay the store of record: the index is derived from them, holds nothing
the user could lose, and may be deleted at any time. `refresh` rebuilds what is missing, stale
(each shard's inode, mtime and size are stamped when indexed), from another format, or damaged;
a first build of a large cache runs the partitions in parallel processes.

Answers equal the scan evaluator's (core/scan.py), which tests keep as the reference: see
rows.py for how the words are laid out and match.py for how a query becomes SQL.

Threads: `refresh` and `set_notes` from one writer thread at a time; `matching`, `ordered`
and `cards` from any thread (each thread has its own connections; WAL lets them read while a write runs).
`close` may come from any thread at any time: it interrupts what runs, waits for it to stop,
and only then closes the connections (closing one in use would crash the process).
A refresh becomes visible partition by partition, each all at once (as a sync's shards do).
Other processes may refresh the same files: SQLite's lock orders the writers, and a writer
skips shards another one brought up to date while it waited.
"""

from __future__ import annotations

import sqlite3
import threading
import zlib
from array import array
from bisect import bisect_left
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from reader.core.query import Node, Term, text_terms
from reader.errors import ReaderError
from reader.packed_ids import ROW_TYPE, IdRows, IdTable, gather
from reader.search_index import partition
from reader.search_index.match import Matcher
from reader.search_index.newest import first_row, head_then_rest, newest_first, partition_rows
from reader.search_index.processes import Builders, build_in_processes, bytes_of, worth_processes
from reader.search_index.ranked import matched_positions, pick
from reader.search_index.rowmap import RowMap
from reader.search_index.rows import Card
from reader.search_index.sharing import most_shared
from reader.search_index.weighed import best_weighed, merged
from reader.store import Store
from reader.store.data_dir import shard_of

if TYPE_CHECKING:
    import subprocess  # imported where a build starts processes: most commands never do

    import numpy as np  # For you's filters import it (ranked.py); others never do

    from reader.core.similar import Like

__all__ = ["PARTITIONS", "Card", "SearchIndex", "SearchIndexError"]

PARTITIONS = 4
T = TypeVar("T")
# How long `close` waits for a running query or refresh to notice it was interrupted.
CLOSE_WAIT_SECONDS = 5.0


class SearchIndexError(ReaderError):
    """The index cannot answer (damaged, or its files cannot be written); `refresh` repairs it."""


def partition_of(shard: str) -> int:
    return zlib.crc32(shard.encode("utf-8")) % PARTITIONS


class SearchIndex:
    def __init__(self, directory: Path):
        self.directory = Path(directory)
        self.paths = [self.directory / f"part{n}.sqlite3" for n in range(PARTITIONS)]
        self._local = threading.local()  # this thread's connections: part -> (inode, connection)
        self._all: list[sqlite3.Connection] = []  # every connection opened, to close them all
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)  # notified when no call is running
        self._running = 0  # calls under way (refresh, set_notes, matching, cards)
        self._closed = False
        self._children: list[subprocess.Popen] = []  # partitions being built in other processes
        self._damaged_parts: set[int] = set()  # seen damaged by a reader: rebuilt by the next refresh
        self._pool: ThreadPoolExecutor | None = None  # the threads `matching` reads partitions from
        self._rowmaps = [RowMap() for _ in range(PARTITIONS)]  # for `ordered`, made at its first call

    @classmethod
    def open(cls, data_dir: Path) -> SearchIndex:
        return cls(Path(data_dir) / "search")

    def built(self) -> bool:
        """Every partition has been built once (a refresh then only brings it up to date)."""
        return all(path.exists() for path in self.paths)

    # --- connections ---------------------------------------------------------------------------

    def _db(self, part: int) -> sqlite3.Connection:
        """This thread's connection to a partition, reopened when the file was replaced."""
        mine: dict[int, tuple[int, sqlite3.Connection]] = self._local.__dict__.setdefault("dbs", {})
        path = self.paths[part]
        try:
            inode = path.stat().st_ino
        except FileNotFoundError:
            inode = -1
        held = mine.get(part)
        if held is not None and held[0] == inode:
            return held[1]
        if held is not None:
            held[1].close()
        if inode == -1:
            raise SearchIndexError("the search index is not built yet")
        db = partition.connect(path)
        mine[part] = (inode, db)
        with self._lock:
            self._all.append(db)
        return db

    def close(self) -> None:
        """Stop what runs (queries interrupted, build processes ended), then close every
        thread's connections. Later calls raise SearchIndexError."""
        with self._lock:
            self._closed = True
            for db in self._all:
                db.interrupt()
            for child in self._children:
                child.kill()
            stopped = self._idle.wait_for(lambda: self._running == 0, timeout=CLOSE_WAIT_SECONDS)
            pool, self._pool = self._pool, None
            if stopped:  # else the process is ending with a call stuck in SQLite: leave them be
                for db in self._all:
                    db.close()
                self._all.clear()
        if pool is not None:
            pool.shutdown()
        self._local = threading.local()

    @contextmanager
    def _in_use(self) -> Iterator[None]:
        """Around every public call, so that `close` knows when none is running; a query that
        `close` interrupted ends as SearchIndexError."""
        with self._lock:
            if self._closed:
                raise SearchIndexError("the search index is closed")
            self._running += 1
        try:
            yield
        except sqlite3.OperationalError as error:
            if self._closed:
                raise SearchIndexError("the search index is closed") from None
            raise error
        finally:
            with self._lock:
                self._running -= 1
                if not self._running:
                    self._idle.notify_all()

    def _check_open(self) -> None:
        if self._closed:
            raise SearchIndexError("the search index is closed")

    # --- writing -------------------------------------------------------------------------------

    def _make_directory(self) -> None:
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise SearchIndexError(f"cannot create {self.directory}: {error.strerror}") from None

    def _writable(self, part: int) -> sqlite3.Connection:
        """The partition ready to write: created, or started over when it is from another
        format, damaged, or mostly stale rows."""
        self._make_directory()
        if part in self._damaged_parts:
            partition.remove(self.paths[part])  # derived data: start again from the shards
            self._damaged_parts.discard(part)
        for attempt in (1, 2):
            try:
                if not self.paths[part].exists():
                    self.paths[part].touch()  # an empty file is an empty database
                db = self._db(part)
                partition.prepare(db)
                if partition.needs_compacting(db):
                    partition.reset(db)
                return db
            except (sqlite3.DatabaseError, KeyError) as error:
                if attempt == 2 or not partition.damaged(error):
                    raise SearchIndexError(f"search index {self.paths[part].name}: {error}") from None
                partition.remove(self.paths[part])
            except OSError as error:
                raise SearchIndexError(f"cannot write {self.paths[part]}: {error.strerror}") from None
        raise AssertionError("unreachable")

    def refresh(self, store: Store, shards: Iterable[str] | None = None, *, offload: bool = False, builders: Builders | None = None) -> int:
        """Index the shards that changed since they were indexed (`shards`: only these; None:
        all, and forget shards that are gone). Returns how many papers were (re)indexed.
        `offload`: any sizeable work runs in child processes (`builders`: a sync's, kept), so that
        this process's other threads (an app's event loop) never wait for the parsing's GIL."""
        with self._in_use():
            return self._refresh(store, shards, offload, builders)

    def _refresh(self, store: Store, shards: Iterable[str] | None, offload: bool, builders: Builders | None) -> int:
        if any(not path.exists() for path in self.paths):
            shards = None  # a partition not built yet is built with all of its shards
        names = store.shards() if shards is None else list(shards)
        files = {name: store.shard_file(name) for name in names}
        mine = {part: {s: p for s, p in files.items() if partition_of(s) == part} for part in range(PARTITIONS)}
        work: dict[int, tuple[dict[str, Path], list[str]]] = {}
        new: set[int] = set()  # partitions with no file yet: built whole (partition.build_new)
        for part in range(PARTITIONS):
            if not self.paths[part].exists() and part not in self._damaged_parts:
                self._make_directory()
                work[part] = (mine[part], [])
                new.add(part)
                continue
            known = partition.indexed_stamps(self._writable(part))
            stale = {s: p for s, p in mine[part].items() if partition.stamp_of(p) != known.get(s)}
            gone = [s for s in known if s not in mine[part]] if shards is None else []
            if stale or gone:
                work[part] = (stale, gone)
        # Each file's size read once: in a thread, every system call waits for the GIL again.
        sizes = {part: bytes_of(stale.values()) for part, (stale, _) in work.items()}
        if worth_processes(list(sizes.values()), offload):
            jobs = [(sizes[part], self.paths[part], stale) for part, (stale, _) in work.items() if stale]
            if builders is not None:
                builders.run(jobs)
            else:
                build_in_processes(jobs, self._lock, self._children, lambda: self._closed)
            self._check_open()  # a child that `close` ended left work not to be done here
        done = 0
        for part, (stale, gone) in work.items():  # what the processes did is skipped as fresh
            try:
                if part in new and not self.paths[part].exists():
                    done += partition.build_new(self.paths[part], stale)
                done += partition.update(self._db(part), stale, gone)
                partition.give_back_space(self._db(part))
            except (sqlite3.DatabaseError, KeyError) as error:
                if not partition.damaged(error):
                    raise SearchIndexError(f"search index {self.paths[part].name}: {error}") from None
                self._damaged_parts.add(part)
                everything = {s: store.shard_file(s) for s in store.shards() if partition_of(s) == part}
                done += partition.update(self._writable(part), everything, ())
            except OSError as error:
                raise SearchIndexError(f"cannot write {self.paths[part]}: {error.strerror}") from None
        return done

    def set_notes(self, store: Store, notes: Mapping[str, str]) -> int:
        """Index the user's notes (paper id -> text; all of them: a note left out is removed).
        Returns how many papers' notes changed."""
        with self._in_use():
            return self._set_notes(store, notes)

    def _set_notes(self, store: Store, notes: Mapping[str, str]) -> int:
        changed = 0
        for part in range(PARTITIONS):
            db = self._writable(part)
            share = {pid: text for pid, text in notes.items() if partition_of(shard_of(pid)) == part}
            shards = {s: store.shard_file(s) for s in partition.indexed_stamps(db)}
            changed += partition.set_notes(db, share, shards)
        return changed

    # --- reading -------------------------------------------------------------------------------

    def matching(self, node: Node) -> set[str]:
        """Ids of the indexed papers that satisfy the query (the partitions asked at once)."""
        texts = self._texts(node)
        return set().union(*self._each(lambda part, db: Matcher(db, texts).ids(node)))

    def _each(self, reading: Callable[[int, sqlite3.Connection], T]) -> list[T]:
        """`reading(part, db)` of every partition, from threads of their own: SQLite lets go of the GIL while it reads."""
        with self._in_use():
            return list(self._readers().map(lambda part: self._read(part, partial(reading, part)), range(PARTITIONS)))

    def most_shared(
        self, groups: Sequence[Sequence[tuple[Node, float]]], share: int, among: Iterable[str] | None = None
    ) -> list[list[str]]:
        """For each group of weighed text queries, the `share` papers (of `among` when given)
        holding the most weight of them (ties by id), read from each partition's best
        (sharing.py), asked at once."""
        by_part: dict[int, list[str]] | None = None
        if among is not None:
            by_part = {part: [] for part in range(PARTITIONS)}
            for pid in among:
                by_part[partition_of(shard_of(pid))].append(pid)

        def best(part: int) -> list[list[tuple[float, str]]]:
            mine = None if by_part is None else by_part[part]
            return self._read(part, lambda db: most_shared(db, groups, share, mine))

        with self._in_use():
            parts = list(self._readers().map(best, range(PARTITIONS)))
        return [[pid for _, pid in sorted(found for part in parts for found in part[g])[:share]] for g in range(len(groups))]

    def best_weighed(self, weighed: Sequence[tuple[float, str, Node]], *, limit: int, leave_out: Collection[str] = ()) -> list[Like]:
        """`best_likes` over `matching`'s sets, from each partition's best rows (weighed.py), asked at once."""
        left = {part: [pid for pid in leave_out if partition_of(shard_of(pid)) == part] for part in range(PARTITIONS)}
        return merged(self._each(lambda part, db: best_weighed(db, weighed, limit, left[part])), weighed, limit)

    def matching_among(self, node: Node, ids: Iterable[str]) -> set[str]:
        """`matching(node) & ids`, with work that grows with `ids`, not with the papers a common
        word matches (likeness asks it of its few best candidates, core/similar.py)."""
        by_part: dict[int, list[str]] = {}
        for pid in ids:
            by_part.setdefault(partition_of(shard_of(pid)), []).append(pid)
        found: set[str] = set()
        with self._in_use():
            asked = self._readers().map(lambda part: self._read(part, lambda db: Matcher(db).ids_among(node, by_part[part])), by_part)
            for ids_found in asked:
                found.update(ids_found)
        return found

    def document_counts(self, nodes: Sequence[Node]) -> list[int]:
        """How many indexed papers match each query (about: a replaced paper's old row counts
        until its partition is rebuilt), for weighing terms by how rare they are."""
        parts = self._each(lambda part, db: [Matcher(db).count(n) for n in nodes])
        return [sum(counts) for counts in zip(*parts)] if nodes else []

    def paper_count(self) -> int:
        """How many papers the index holds."""
        with self._in_use():
            return sum(self._read(part, lambda db: db.execute("SELECT count(*) FROM papers").fetchone()[0]) for part in range(PARTITIONS))

    def ordered(self, node: Node, order: Sequence[str], position: IdTable, *, ranked: bool = False) -> IdRows:
        """The ids of `order` that satisfy the query, in its order (`position` maps each id of
        `order` to its index). Equal to filtering `order` by `matching`, at a fraction of the
        cost when many match; the first call (and the first after the index or `order`
        changed) also reads every paper's row number. A view of `order`'s positions (IdRows: 4
        bytes a match, no string). `ranked`: `order` is a ranking's, not the catalog's: its
        matches are marked with numpy (ranked.py), not sorted."""
        texts = self._texts(node)
        found: list[Any] = self._each(
            lambda part, db: self._positions(part, db, node, order, position, ranked, texts)
        )  # (lists, or arrays when ranked)
        if ranked:
            return IdRows(order, pick(len(order), found), position.get)
        positions: list[int] = []
        for part in found:
            positions += part
        positions.sort()  # the catalog's order: a few long runs (rows are numbered about in date order), merged
        del positions[bisect_left(positions, len(order)) :]  # stale rows, papers not in `order`
        return IdRows(order, array(ROW_TYPE, positions), position.get)

    def newest(self, node: Node, pages: list[int] | None = None) -> Iterator[tuple[str, int]]:
        """The ids that satisfy the query with their v1 day ordinals, in the catalog's order
        (day, then id, both descending), read from the partitions only as far as the caller
        takes them (see newest.py; `pages`: each page's size read is appended to it)."""
        texts = self._texts(node)
        runs = [partition_rows(partial(self._read_now, part), node, texts, pages) for part in range(PARTITIONS)]
        # Each partition's first page read at once, from threads of their own (SQLite lets go of
        # the GIL), started now: the caller may read something else meanwhile (`reader list`
        # reads the catalog's index); the merge takes a row of each before it gives the first.
        heads = [self._readers().submit(first_row, run) for run in runs]
        return newest_first(head_then_rest(head, run) for head, run in zip(heads, runs))

    def sort_values(self, sort: str) -> Iterator[tuple[list[str], list[str]]]:
        """Every paper's id and the card value `sort` orders by (core/sorting.py's KEYED), a page
        at a time: each partition's pages read in one transaction, so they are of one state."""
        for part in range(PARTITIONS):
            yield from self._read_now(part, partial(partition.sort_pages, sort))

    def _read_now(self, part: int, reading):
        with self._in_use():
            return self._read(part, reading)

    def map_rows(self, order: Sequence[str], position: IdTable, *, ranked: bool = False) -> None:
        """Read now what `ordered` needs for this order (in a worker thread, after a refresh),
        so that the next filter does not."""
        self._each(lambda part, db: self._positions(part, db, None, order, position, ranked))

    def _texts(self, node: Node) -> dict[Term, set[str]]:
        """The papers whose stored full text holds each of the query's `text:` terms (searched in
        the full texts' own index, beside this one: reader/fulltext/text_index.py)."""
        terms = text_terms(node)
        if not terms:
            return {}
        from reader.fulltext.text_index import TextIndex

        try:
            return TextIndex(self.directory.parent).matching(terms)
        except (sqlite3.Error, OSError) as error:
            raise SearchIndexError(f"the full texts' search index cannot be used: {error}") from None

    def _positions(
        self,
        part: int,
        db: sqlite3.Connection,
        node: Node | None,
        order: Sequence[str],
        position: IdTable,
        ranked: bool,
        texts: Mapping[Term, set[str]] | None = None,
    ) -> list[int] | np.ndarray | None:
        """Positions in `order` of the partition's matches (len(order) for rows not in it): a
        list, or with `ranked` a numpy array."""
        rowmap = self._rowmaps[part]
        with rowmap.lock:
            db.execute("BEGIN")  # the map and the matches of one state of the partition
            try:
                if ranked:
                    array = rowmap.position_array(db, order, position)
                    return matched_positions(array, Matcher(db, texts or {}).row_text(node)) if node is not None else None
                table = rowmap.positions(db, order, position)
                return gather(table, Matcher(db, texts or {}).row_list(node)) if node is not None else None
            finally:
                if db.in_transaction:
                    db.execute("ROLLBACK")  # read only: nothing to keep

    def _readers(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(PARTITIONS, thread_name_prefix="search_index")
            return self._pool

    def cards(self, ids: Iterable[str]) -> dict[str, Card]:
        """Cards of the given papers that the index holds, by id."""
        by_part: dict[int, list[str]] = {}
        for pid in ids:
            by_part.setdefault(partition_of(shard_of(pid)), []).append(pid)
        found: dict[str, Card] = {}
        with self._in_use():
            for part, wanted in by_part.items():
                found.update(self._read(part, lambda db, wanted=wanted: partition.cards(db, wanted)))
        return found

    def current_cards(self, store: Store, ids: Iterable[str]) -> dict[str, Card]:
        """`cards` after bringing only these papers' shards up to date (a stat of each): what a
        command showing a few papers needs, without looking at every shard."""
        ids = list(ids)
        if not ids:
            return {}  # (a refresh of no shards would build a missing index whole)
        self.refresh(store, sorted({shard_of(pid) for pid in ids}))
        return self.cards(ids)

    def _read(self, part, reading):
        try:
            return reading(self._db(part))
        except sqlite3.DatabaseError as error:
            if partition.damaged(error):
                self._damaged_parts.add(part)
            raise SearchIndexError(f"search index {self.paths[part].name}: {error}") from None
