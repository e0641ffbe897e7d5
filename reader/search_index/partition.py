"""One partition of the search index: an SQLite file holding some shards' papers.

    shards   name -> stamp (inode, mtime, size of papers/NAME.json when last indexed)
    papers   num (the full-text row), id, shard, fingerprint, date key, card columns
    words    FTS5, contentless: the words of ti abs au co jr cat id note, rowid = papers.num;
             stemmed by FTS5's porter tokenizer (as core/stem.py stems them for the scan)
    cards    num -> what a card shows; its abstract deflated with the partition's dictionary,
             card_dictionary (abstracts.py)
    notes    id -> the note last indexed (a copy: user state is the record)
    meta     next_num (row numbers are never reused), stale (rows of replaced papers), and
             generation: a new random number whenever papers' rows change (rowmap.py keys on it)

A contentless FTS5 table cannot delete a row without its old words, so a replaced paper gets a
new row and the old one is left behind, unreachable: every query joins with `papers`. Only
papers whose fingerprint changed are replaced, and when stale rows outnumber live ones the
partition is rebuilt. Writes are one transaction per refresh: readers in other threads or
processes (WAL) see the old state or the new one, never half of one.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path

from reader.core.sanitize import INVISIBLE_UTF8, clean_text, has_invisible
from reader.errors import StoreError
from reader.search_index import abstracts
from reader.search_index.rows import COLUMNS, LIST_MARK, Card, Row, prose, row_of
from reader.store.files import parse_json, uncompressed
from reader.store.schema import is_record, without_invisible_text
from reader.store.shard_files import merged, twin_of

FORMAT = 4  # bump when rows.py or the schema changes: every partition is then rebuilt
BUSY_SECONDS = 60.0  # another process's first build of a partition may hold the write lock
# The write-ahead log is cut back to this once checkpointed: a log grown as large as the partition
# (a VACUUM, a large update) whose TRUNCATE checkpoint met a reader is not kept while the index is open.
WAL_KEPT_BYTES = 64 * 1024 * 1024
BUILD_HASH_BYTES = 128 * 1024 * 1024  # FTS5 keeps this much in memory before writing a segment
Stamp = str
LARGE_UPDATE = 2000  # papers
# Rows inserted together: a first build holds a few shards' texts at a time, not a quarter of
# the cache's (each build process grew to ~1 GB at 1,000,000 papers).
INSERTED_TOGETHER = 5000

# The papers table's secondary indexes: `update` finds a shard's rows by the first, newest.py
# walks the second. A first build creates them after its rows are in (one sort each, not a
# B-tree insert per row).
_INDEXES = "CREATE INDEX papers_shard ON papers(shard);\nCREATE INDEX papers_date ON papers(date)"
_INDEX_NAMES = ("papers_shard", "papers_date")
_SCHEMA = f"""
CREATE TABLE shards(name TEXT PRIMARY KEY, stamp TEXT NOT NULL);
CREATE TABLE papers(
    num INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, shard TEXT NOT NULL,
    fingerprint INTEGER NOT NULL, date TEXT NOT NULL);
CREATE TABLE cards(
    num INTEGER PRIMARY KEY, version INTEGER NOT NULL, primary_category TEXT NOT NULL,
    published TEXT NOT NULL, title TEXT NOT NULL, abstract BLOB NOT NULL, authors TEXT NOT NULL,
    author_count INTEGER NOT NULL, affiliations TEXT NOT NULL, affiliation_count INTEGER NOT NULL,
    updated TEXT NOT NULL);
{_INDEXES};
CREATE TABLE notes(id TEXT PRIMARY KEY, note TEXT NOT NULL);
CREATE TABLE meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL);
{abstracts.SCHEMA};
INSERT INTO meta VALUES ('next_num', 1), ('stale', 0), ('live', 0), ('generation', random());
CREATE VIRTUAL TABLE words USING fts5({", ".join(COLUMNS)}, content='', tokenize='porter ascii', columnsize=0);
INSERT INTO words(words, rank) VALUES ('hashsize', {BUILD_HASH_BYTES});
PRAGMA user_version = {FORMAT};
"""
_TABLES = ("shards", "papers", "cards", "card_dictionary", "notes", "meta", "words")
_BUILDING = ".new-"  # partN.sqlite3.new-PID: a first build under way in process PID
_CARD_COLUMNS = "id, version, primary_category, published, title, abstract, authors, author_count, affiliations, affiliation_count"
_INSERT_CARD = "INSERT INTO cards VALUES (?,?,?,?,?,?,?,?,?,?,?)"


def stamp_of(path: Path) -> Stamp | None:
    """What changes whenever the file is replaced or rewritten (the store replaces shards)."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return f"{stat.st_ino}:{stat.st_mtime_ns}:{stat.st_size}"


def connect(path: Path) -> sqlite3.Connection:
    """A connection for one thread (used by one thread at a time, closed from any)."""
    db = sqlite3.connect(path, timeout=BUSY_SECONDS, isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")  # in WAL: never damaged by a crash, may forget the last write
    db.execute(f"PRAGMA journal_size_limit = {WAL_KEPT_BYTES}")
    return db


def build_new(path: Path, shards: Mapping[str, Path]) -> int:
    """A partition that does not exist yet, built whole: written without a journal into a file
    of its own, made durable, then linked into place (unless another process's build got there
    first: the caller's update then brings that one up to date). Returns papers indexed."""
    _remove_abandoned(path)
    building = path.with_name(f"{path.name}{_BUILDING}{os.getpid()}")
    try:
        db = sqlite3.connect(building, isolation_level=None)
        try:
            # Nothing reads this file until it is complete, so nothing needs the journal.
            db.execute("PRAGMA journal_mode = OFF")
            db.execute("PRAGMA synchronous = OFF")
            prepare(db)
            for name in _INDEX_NAMES:
                db.execute(f"DROP INDEX {name}")
            done = update(db, shards, fresh=True)
            for statement in _INDEXES.split(";\n"):
                db.execute(statement)
            db.execute("PRAGMA journal_mode = WAL")
        finally:
            db.close()
        with open(building, "rb") as file:
            os.fsync(file.fileno())
        try:
            os.link(building, path)  # never replaces a partition that appeared meanwhile
        except FileExistsError:
            return 0
        return done
    finally:
        remove(building)


def _remove_abandoned(path: Path) -> None:
    """Half-built files of this partition left by processes that died while building it."""
    for leftover in path.parent.glob(f"{path.name}{_BUILDING}*"):
        pid = leftover.name.rpartition(_BUILDING)[2]
        if pid.isdigit() and not _running(int(pid)):
            remove(leftover)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # alive, but another user's
    return True


def prepare(db: sqlite3.Connection) -> None:
    """Create the tables, or start over when they are from another format. Raises
    sqlite3.DatabaseError when the file is not a database (the caller deletes it)."""
    if db.execute("PRAGMA user_version").fetchone()[0] == FORMAT:
        return  # the usual case: no write lock taken
    db.execute("BEGIN IMMEDIATE")
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version != FORMAT:
            for table in _TABLES:
                db.execute(f"DROP TABLE IF EXISTS {table}")
            for statement in _SCHEMA.strip().split(";\n"):
                db.execute(statement)
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def remove(path: Path) -> None:
    """Delete a partition file and its WAL companions (all of it is derived)."""
    for suffix in ("", "-wal", "-shm"):
        try:
            os.unlink(f"{path}{suffix}")
        except FileNotFoundError:
            pass


def indexed_stamps(db: sqlite3.Connection) -> dict[str, Stamp]:
    return dict(db.execute("SELECT name, stamp FROM shards"))


def _shard_docs(path: Path) -> list[dict]:
    """The shard's records, its twin's merged in (store/shard_files.py); a damaged or missing
    shard has none (the store repairs it)."""
    twin = twin_of(path)
    if not twin.exists():
        return _file_docs(path)
    return list(merged(_records_by_id(_file_docs(twin)), _records_by_id(_file_docs(path))).values())


def _records_by_id(docs: list[dict]) -> dict[str, dict]:
    return {doc["id"]: doc for doc in docs if is_record(doc)}


def _file_docs(path: Path) -> list[dict]:
    try:
        raw = uncompressed(path.read_bytes(), path)
        data = parse_json(raw, path)
    except (OSError, StoreError):
        return []
    docs = data.get("papers", {})
    if not isinstance(docs, dict):
        return []
    if any(marker in raw for marker in INVISIBLE_UTF8):  # cached before clean_text dropped them
        return [without_invisible_text(doc) if is_record(doc) else doc for doc in docs.values()]
    return list(docs.values())


def update(db: sqlite3.Connection, shards: Mapping[str, Path], gone: Iterable[str] = (), *, fresh: bool = False) -> int:
    """Bring `shards` (name -> file) up to date and forget `gone` shards, in one transaction.
    Returns how many papers were (re)indexed. ShardFiles whose stamp has not changed since are
    skipped (another process may have done the work while we waited for the lock). `fresh`:
    the partition holds no papers (a first build, its shard index not made yet): none is
    looked up."""
    db.execute("BEGIN IMMEDIATE")
    try:
        done = _update(db, shards, gone, fresh)
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    if done > LARGE_UPDATE and _in_wal(db):  # a write-ahead log as large as the partition: give its space back
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return done


def _in_wal(db: sqlite3.Connection) -> bool:
    return db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def _update(db: sqlite3.Connection, shards: Mapping[str, Path], gone: Iterable[str], fresh: bool = False) -> int:
    known = indexed_stamps(db)
    meta = dict(db.execute("SELECT key, value FROM meta"))
    next_num, stale, live = meta["next_num"], meta["stale"], meta["live"]
    notes = dict(db.execute("SELECT id, note FROM notes"))
    papers: list[tuple] = []
    cards: list[tuple] = []
    words: list[tuple] = []
    dropped: list[int] = []
    stamps: list[tuple[str, Stamp]] = []
    added = removed = 0
    for shard, path in shards.items():
        stamp = stamp_of(path)  # taken before reading: a write after it is caught next time
        if stamp is None or stamp == known.get(shard):
            continue
        old = (
            {}
            if fresh
            else {pid: (num, fp) for num, pid, fp in db.execute("SELECT num, id, fingerprint FROM papers WHERE shard = ?", (shard,))}
        )
        current: dict[str, Row] = {}
        for doc in _shard_docs(path):
            try:
                row = row_of(doc)
            except (KeyError, TypeError, ValueError, AttributeError, IndexError):
                continue  # a record the store cannot read either
            current[row.id] = row
        for pid, row in current.items():
            note = notes.get(pid, "")
            fingerprint = row.fingerprint(note)
            before = old.pop(pid, None)
            if before is not None and before[1] == fingerprint:
                continue
            if before is not None:
                dropped.append(before[0])
            papers.append((next_num, pid, shard, fingerprint, row.date))
            cards.append((next_num, *row.card[1:]))
            words.append((next_num, *row.text, prose(note)))
            next_num += 1
        dropped += [num for num, _ in old.values()]
        stamps.append((shard, stamp))
        if len(papers) >= INSERTED_TOGETHER:
            removed += len(dropped)
            added += _insert(db, dropped, papers, cards, words)
    for shard in gone:
        nums = [num for (num,) in db.execute("SELECT num FROM papers WHERE shard = ?", (shard,))]
        dropped += nums
        db.execute("DELETE FROM shards WHERE name = ?", (shard,))
    removed += len(dropped)
    added += _insert(db, dropped, papers, cards, words)
    db.executemany("INSERT OR REPLACE INTO shards VALUES (?, ?)", stamps)
    changes = {"next_num": next_num, "stale": stale + removed, "live": live + added - removed}
    db.executemany("UPDATE meta SET value = ? WHERE key = ?", ((v, k) for k, v in changes.items()))
    if added or removed:  # (a partition written before generations were kept gets one now)
        db.execute("INSERT OR REPLACE INTO meta VALUES ('generation', random())")
    return added


def _insert(db: sqlite3.Connection, dropped: list[int], papers: list[tuple], cards: list[tuple], words: list[tuple]) -> int:
    """Delete the rows replaced so far (first: a paper's new row has its id), insert the rows
    gathered, and empty the lists (in the caller's transaction). Returns the rows inserted."""
    db.executemany("DELETE FROM papers WHERE num = ?", ((num,) for num in dropped))
    db.executemany("DELETE FROM cards WHERE num = ?", ((num,) for num in dropped))
    dropped.clear()
    db.executemany("INSERT INTO papers VALUES (?,?,?,?,?)", papers)
    if cards:
        pack = abstracts.packer(db, (card[5] for card in cards)).pack
        db.executemany(_INSERT_CARD, ((*card[:5], pack(card[5]), *card[6:]) for card in cards))
    db.executemany(f"INSERT INTO words(rowid, {', '.join(COLUMNS)}) VALUES (?,?,?,?,?,?,?,?,?)", words)
    inserted = len(papers)
    papers.clear()
    cards.clear()
    words.clear()
    return inserted


def needs_compacting(db: sqlite3.Connection) -> bool:
    """Stale rows outnumber live ones (and are many): time to rebuild the partition."""
    meta = dict(db.execute("SELECT key, value FROM meta"))
    return meta["stale"] > max(meta["live"], 10_000)


# Free pages past this share of a partition's file (and this many) are given back by VACUUM.
FREE_SHARE, FREE_PAGES = 0.25, 2_500


def give_back_space(db: sqlite3.Connection) -> None:
    """Rewrite the file when most of it is free pages: a partition rebuilt in place (another
    format, compacted) keeps its old pages as free ones (~90 MB of ~410 at 1,000,000 papers
    when format 4 replaced 3), and SQLite never shrinks a file by itself."""
    free = db.execute("PRAGMA freelist_count").fetchone()[0]
    if free > FREE_PAGES and free > FREE_SHARE * db.execute("PRAGMA page_count").fetchone()[0]:
        try:
            db.execute("VACUUM")
            if _in_wal(db):  # (the rewrite went through the log: as large as the file)
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.OperationalError:
            pass  # another connection writes or reads on: the next refresh tries again


def reset(db: sqlite3.Connection) -> None:
    """Forget everything (the next update re-reads every shard)."""
    db.execute("PRAGMA user_version = 0")
    prepare(db)


def set_notes(db: sqlite3.Connection, notes: Mapping[str, str], shards: Mapping[str, Path]) -> int:
    """Make the partition's notes equal `notes` (its papers' share of them), re-indexing the
    papers whose note changed. Returns how many changed."""
    db.execute("BEGIN IMMEDIATE")
    try:
        before = dict(db.execute("SELECT id, note FROM notes"))
        changed = {pid for pid in before.keys() | notes.keys() if before.get(pid, "") != notes.get(pid, "")}
        if changed:
            db.execute("DELETE FROM notes")
            db.executemany("INSERT INTO notes VALUES (?, ?)", ((pid, note) for pid, note in notes.items() if note))
            # Forget the stamps of the shards holding those papers: update() re-reads them and
            # replaces just the papers whose fingerprint (which covers the note) changed.
            touched = {
                shard
                for (shard,) in db.execute(
                    "SELECT DISTINCT shard FROM papers WHERE id IN (SELECT value FROM json_each(?))", (_json_list(changed),)
                )
            }
            db.executemany("DELETE FROM shards WHERE name = ?", ((s,) for s in touched))
            _update(db, {s: shards[s] for s in touched if s in shards}, ())
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return len(changed)


def _json_list(values: Iterable[str]) -> str:
    return json.dumps(list(values))


# What each sort reads of a card (see core/sorting.py): the first author is the authors' first name.
SORT_COLUMNS = {"updated": "updated", "title": "title", "author": f"substr(authors, 1, instr(authors || '{LIST_MARK}', '{LIST_MARK}') - 1)"}
SORT_PAGE = 20_000  # rows read at a time: json decoding holds the GIL, a page only briefly


def sort_values(db: sqlite3.Connection, sort: str, after: int) -> tuple[list[str], list[str], int]:
    """The ids and sort values of a page of rows numbered above `after`, and the last number
    read (`after` itself when none are left). Call inside one read transaction."""
    nums, ids, values = db.execute(
        f"SELECT json_group_array(num), json_group_array(id), json_group_array(value) FROM "
        f"(SELECT num, id, {SORT_COLUMNS[sort]} AS value FROM papers JOIN cards USING (num) WHERE num > ? ORDER BY num LIMIT ?)",
        (after, SORT_PAGE),
    ).fetchone()
    numbers = json.loads(nums)
    return json.loads(ids), json.loads(values), numbers[-1] if numbers else after


def cards(db: sqlite3.Connection, ids: list[str]) -> dict[str, Card]:
    rows = db.execute(
        f"SELECT {_CARD_COLUMNS} FROM papers JOIN cards USING (num) WHERE id IN (SELECT value FROM json_each(?))",
        (_json_list(ids),),
    )
    found = {}
    dictionary = abstracts.stored_dictionary(db)
    for pid, version, primary, published, title, packed, authors, author_count, affiliations, affiliation_count in rows:
        abstract = abstracts.unpacked(packed, dictionary)
        if has_invisible(title + abstract + authors + affiliations):  # a row made before clean_text dropped them
            title, abstract, authors, affiliations = (
                LIST_MARK.join(clean_text(part) for part in text.split(LIST_MARK)) for text in (title, abstract, authors, affiliations)
            )
        found[pid] = Card(
            pid,
            version,
            primary,
            published,
            title,
            abstract,
            tuple(authors.split(LIST_MARK)) if authors else (),
            author_count,
            tuple(affiliations.split(LIST_MARK)) if affiliations else (),
            affiliation_count,
        )
    return found


def sort_pages(sort: str, db: sqlite3.Connection) -> list[tuple[list[str], list[str]]]:
    """Every row's id and sort value, a page at a time, read in one transaction (one state)."""
    pages = []
    db.execute("BEGIN")
    try:
        ids, values, after = sort_values(db, sort, 0)
        while ids:
            pages.append((ids, values))
            ids, values, after = sort_values(db, sort, after)
    finally:
        db.execute("ROLLBACK")
    return pages


# Not a database, damaged pages, or tables that are not ours (SQLITE_ERROR: "no such table"):
# rebuilt. Locks, a full disk or an unwritable directory are errors to report instead.
DAMAGED = (sqlite3.SQLITE_ERROR, sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_MISMATCH)


def damaged(error: Exception) -> bool:
    """The error says the file is damaged (rebuilt from the shards), not locked or unwritable."""
    if isinstance(error, KeyError):  # our meta rows are missing
        return True
    return (getattr(error, "sqlite_errorcode", 0) & 0xFF) in DAMAGED or "malformed" in str(error)
