"""`text:` searches the stored full texts: their words, folded as every field's are (core/text.py's
word_string: whole words, case and accents ignored, each with its inflections, a phrase is
consecutive words).

`body_words` is what both evaluators search: the scan evaluator (core/scan.py, the reference)
looks for the stems ` w1 w2 ` in it; the index, `fulltext/words.sqlite3`, holds the same words in
an FTS5 table (the `ascii` tokenizer splits word_string's output exactly at its spaces; `porter`
stems each word as the scan's core/stem.py does) and answers a phrase query. Beside the words,
`cites(citing, cited)` holds the arXiv papers each text's references name: "cited by" is one
lookup, never a reading of every text. The index is derived from the stored files: a text is
indexed as it is stored (`index_stored`), and the index is kept current as it is asked: each
text's file is stamped when indexed, and a changed, new or removed file is indexed again (300
stat calls: a millisecond or two). Delete it at any time: it is rebuilt from the stored texts."""

from __future__ import annotations

import io
import logging
import os
import sqlite3
from collections.abc import Iterable
from pathlib import Path

from reader.core.query import Term
from reader.core.text import word_string
from reader.errors import StoreError
from reader.fulltext.document import Document
from reader.fulltext.store import TextStore

log = logging.getLogger("reader.fulltext")
TEXT_WORDS_LIMIT = 8 * 1024 * 1024  # characters of a text's words that `text:` searches
CHUNK = 64 * 1024  # word_string makes a list of a piece's words: pieces are kept small
FORMAT = 3  # bump when the words, their tokenizer or the tables change: an index of another format is rebuilt
BUSY_SECONDS = 30.0
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS texts(num INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, stamp TEXT NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS words USING fts5(body, tokenize='porter ascii', columnsize=0);
CREATE TABLE IF NOT EXISTS cites(cited TEXT NOT NULL, citing INTEGER NOT NULL, PRIMARY KEY(cited, citing)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS cites_citing ON cites(citing);
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
                term: {
                    row[0]
                    for row in db.execute(
                        "SELECT t.id FROM words JOIN texts t ON t.num = words.rowid WHERE words MATCH ?", (_phrase(term),)
                    )
                }
                for term in terms
            }
        finally:
            db.close()

    def cited_by(self, paper_id: str, *, quick: bool = False) -> list[str] | None:
        """The ids of the stored texts whose references name `paper_id`, in id order. `quick` (the
        detail view): never a rebuild of the whole index nor a wait for another process; None
        when the answer would need either. StoreError when the index cannot be read or made."""
        stored = self.texts.stored_versions()
        if not stored:
            return []
        if not quick:
            try:
                return self._cited_by(self._open(), stored, paper_id)
            except sqlite3.Error as error:
                raise StoreError(f"cannot read the full-text index {self.path}: {error}") from None
        if not self._current():
            return None
        try:  # the index exists in this format: no schema to make, no file to remove
            return self._cited_by(sqlite3.connect(self.path, timeout=0.2, isolation_level=None), stored, paper_id)
        except sqlite3.Error as error:  # busy: another process indexes
            log.info("cited by %s not counted: %s", paper_id, error)
            return None

    def _cited_by(self, db: sqlite3.Connection, stored: dict[str, int], paper_id: str) -> list[str]:
        try:
            self._refresh(db, stored)
            return [
                row[0]
                for row in db.execute(
                    "SELECT t.id FROM cites c JOIN texts t ON t.num = c.citing WHERE c.cited = ? ORDER BY t.id", (paper_id,)
                )
            ]
        finally:
            db.close()

    def index_stored(self, document: Document, path: Path) -> None:
        """The text just stored at `path`, indexed now (its words and what it cites). The index is
        derived: a failure is logged, and the next query indexes the file."""
        stamp = _stamp(path)
        if stamp is None:
            return
        try:
            db = self._open()
            try:
                db.execute("BEGIN IMMEDIATE")
                try:
                    self._index(db, document.id, stamp, document)
                    db.execute("COMMIT")
                except BaseException:
                    db.execute("ROLLBACK")
                    raise
            finally:
                db.close()
        except sqlite3.Error as error:
            log.warning("the text of %s is indexed at the next search: %s", document.id, error)

    def _current(self) -> bool:
        """Whether the index exists in this format (so bringing it up to date reads few texts)."""
        if not self.path.is_file():
            return False
        try:
            db = sqlite3.connect(f"{self.path.as_uri()}?mode=ro", uri=True, timeout=0.2)
            try:
                return bool(db.execute("PRAGMA user_version").fetchone()[0] == FORMAT)
            finally:
                db.close()
        except sqlite3.Error:
            return False

    def _open(self) -> sqlite3.Connection:
        self.texts.directory.mkdir(parents=True, exist_ok=True)
        for attempt in (1, 2):
            db = sqlite3.connect(self.path, timeout=BUSY_SECONDS, isolation_level=None)
            try:
                db.execute("PRAGMA journal_mode = WAL")
                version = db.execute("PRAGMA user_version").fetchone()[0]
                if version not in (0, FORMAT):
                    raise sqlite3.DatabaseError("another format")
                if version == 0:  # (the script says FORMAT last: a file at FORMAT has every table)
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
        # Paths as text, not Path objects: making and stat'ing 1,000 Paths was a third of a lookup.
        folder = f"{self.texts.directory}{os.sep}"
        files = {pid: folder + self.texts.file_name(pid, version) for pid, version in stored.items()}
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
                document = self.texts.load_file(Path(files[pid]))
                if document is None:
                    self._remove(db, pid)
                else:
                    self._index(db, pid, stamp, document)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    @classmethod
    def _index(cls, db: sqlite3.Connection, pid: str, stamp: str, document: Document) -> None:
        """The text's words and the papers it cites, in place of any it had (in a transaction)."""
        cls._remove(db, pid)
        num = db.execute("INSERT INTO texts(id, stamp) VALUES (?, ?)", (pid, stamp)).lastrowid
        db.execute("INSERT INTO words(rowid, body) VALUES (?, ?)", (num, body_words(document.texts())))
        cited = {block.arxiv_id for block in document.references if block.arxiv_id and block.arxiv_id != pid}
        db.executemany("INSERT INTO cites(cited, citing) VALUES (?, ?)", [(paper_id, num) for paper_id in cited])

    @staticmethod
    def _remove(db: sqlite3.Connection, pid: str) -> None:
        row = db.execute("SELECT num FROM texts WHERE id = ?", (pid,)).fetchone()
        if row is not None:
            db.execute("DELETE FROM words WHERE rowid = ?", (row[0],))
            db.execute("DELETE FROM cites WHERE citing = ?", (row[0],))
            db.execute("DELETE FROM texts WHERE num = ?", (row[0],))


def _stamp(path: str | Path) -> str | None:
    try:
        stat = os.stat(path)
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
