"""`text:` searches the stored full texts: their words, folded as every field's are (core/text.py's
word_string: whole words, case and accents ignored, each with its inflections, a phrase is
consecutive words).

`body_words` is what both evaluators search: the scan evaluator (core/search.py, the reference)
looks for the stems ` w1 w2 ` in it; the index, `fulltext/words.sqlite3`, holds the same words in
an FTS5 table (the `ascii` tokenizer splits word_string's output exactly at its spaces; `porter`
stems each word as the scan's core/stem.py does) and answers a phrase query. The index is
derived from the stored files and kept current as it is asked: each text's file is stamped when indexed, and a changed, new or removed file is indexed again
(300 stat calls: a millisecond or two). Delete it at any time."""

from __future__ import annotations

import io
import logging
import sqlite3
from collections.abc import Iterable
from pathlib import Path

from reader.core.query import Term
from reader.core.text import word_string
from reader.fulltext.document import Document
from reader.fulltext.store import TextStore

log = logging.getLogger("reader.fulltext")
TEXT_WORDS_LIMIT = 8 * 1024 * 1024  # characters of a text's words that `text:` searches
CHUNK = 64 * 1024  # word_string makes a list of a piece's words: pieces are kept small
FORMAT = 2  # bump when the words or their tokenizer change: an index of another format is rebuilt
BUSY_SECONDS = 30.0
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS texts(num INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, stamp TEXT NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS words USING fts5(body, tokenize='porter ascii', columnsize=0);
PRAGMA user_version = {FORMAT};
"""


def body_words(texts: Iterable[str]) -> str:
    """The words of a text's blocks (its first TEXT_WORDS_LIMIT characters of them), as
    word_string makes them: ` w1 w2 ... `. Read piece by piece, so memory stays bounded."""
    out = io.StringIO()
    out.write(" ")
    size = 1
    for text in texts:
        start, length = 0, len(text)
        while start < length:
            end = min(start + CHUNK, length)
            if end < length:  # a piece ends at a space where there is one: no word is cut in two
                space = text.rfind(" ", start, end)
                end = space if space > start else end
            words = word_string(text[start:end])[1:]
            start = end
            if len(words) > 1:
                out.write(words)
                size += len(words)
            if size >= TEXT_WORDS_LIMIT:
                whole = out.getvalue()[:TEXT_WORDS_LIMIT]
                return whole[: whole.rfind(" ") + 1]
    return out.getvalue()


def _phrase(term: Term) -> str:
    return 'body : "' + " ".join(term.words) + '"'


class TextIndex:
    def __init__(self, data_dir: Path):
        self.texts = TextStore(data_dir)
        self.path = self.texts.directory / "words.sqlite3"

    def matching(self, terms: Iterable[Term]) -> dict[Term, set[str]]:
        """The ids whose stored text holds each `text:` term (after bringing the index up to date)."""
        terms = list(dict.fromkeys(terms))
        stored = self.texts.stored_versions()
        if not stored:
            return {term: set() for term in terms}
        db = self._open()
        try:
            self._refresh(db, stored)
            return {
                term: {row[0] for row in db.execute(
                    "SELECT t.id FROM words JOIN texts t ON t.num = words.rowid WHERE words MATCH ?", (_phrase(term),)
                )}
                for term in terms
            }
        finally:
            db.close()

    def _open(self) -> sqlite3.Connection:
        self.texts.directory.mkdir(parents=True, exist_ok=True)
        for attempt in (1, 2):
            db = sqlite3.connect(self.path, timeout=BUSY_SECONDS, isolation_level=None)
            try:
                db.execute("PRAGMA journal_mode = WAL")
                if db.execute("PRAGMA user_version").fetchone()[0] not in (0, FORMAT):
                    raise sqlite3.DatabaseError("another format")
                db.executescript(_SCHEMA)
                return db
            except sqlite3.DatabaseError as error:
                db.close()
                if attempt == 2:
                    raise
                log.warning("the full-text index %s is rebuilt: %s", self.path, error)
                for suffix in ("", "-wal", "-shm"):
                    Path(f"{self.path}{suffix}").unlink(missing_ok=True)
        raise AssertionError("unreachable")

    def _refresh(self, db: sqlite3.Connection, stored: dict[str, int]) -> None:
        files = {pid: self.texts.path(pid, version) for pid, version in stored.items()}
        stamps = {pid: _stamp(path) for pid, path in files.items()}
        known = dict(db.execute("SELECT id, stamp FROM texts"))
        if known == stamps:
            return
        db.execute("BEGIN IMMEDIATE")  # another process may be doing the same: one at a time
        try:
            known = dict(db.execute("SELECT id, stamp FROM texts"))
            for pid in known.keys() - stamps.keys():
                self._remove(db, pid)
            for pid, stamp in stamps.items():
                if known.get(pid) == stamp or stamp is None:
                    continue
                document = self.texts.load_file(files[pid])
                self._remove(db, pid)
                if document is None:
                    continue
                num = db.execute("INSERT INTO texts(id, stamp) VALUES (?, ?)", (pid, stamp)).lastrowid
                db.execute("INSERT INTO words(rowid, body) VALUES (?, ?)", (num, body_words(document.texts())))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    @staticmethod
    def _remove(db: sqlite3.Connection, pid: str) -> None:
        row = db.execute("SELECT num FROM texts WHERE id = ?", (pid,)).fetchone()
        if row is not None:
            db.execute("DELETE FROM words WHERE rowid = ?", (row[0],))
            db.execute("DELETE FROM texts WHERE num = ?", (row[0],))


def _stamp(path: Path) -> str | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return f"{stat.st_ino}:{stat.st_mtime_ns}:{stat.st_size}"


def stored_words(data_dir: Path) -> dict[str, str]:
    """Every stored text's words (paper id -> body_words), for the scan evaluator."""
    texts = TextStore(data_dir)
    found: dict[str, str] = {}
    for pid in texts.stored_versions():
        document: Document | None = texts.load(pid)
        if document is not None:
            found[pid] = body_words(document.texts())
    return found
