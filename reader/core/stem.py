"""English stems, so that a word matches its inflections (`agents` finds `agent`, `learned` finds
`learning`), as arXiv's own search does.

The search indexes (reader/search_index, reader/fulltext/text_index.py) stem with SQLite FTS5's `porter`
tokenizer, in C, as they index and as they read a query. The scan evaluator (core/scan.py) must
find exactly the same papers, so its stems come from the same code: each word not met before is
stemmed by an in-memory FTS5 table with that tokenizer, and remembered. Python stemmers were
measured against FTS5 and none agrees on every word (NLTK's Porter differs on `ies`, `sses`,
`eed`; Snowball's on every `-logy`), so the tokenizer is asked itself: equal by construction.

Words are word_string's (core/text.py): lower-case ASCII letters and digits. As FTS5 does, words
shorter than 3 or longer than 64 characters are kept as they are.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable

SHORTEST, LONGEST = 3, 64  # FTS5's porter stems tokens of this many bytes only
_FORGET_AT = 2_000_000  # a vocabulary this large is mostly one-off words: start again


class _Stemmer:
    """Word -> stem, remembered; unknown words asked of FTS5 together (one statement a batch)."""

    def __init__(self) -> None:
        self.stems: dict[str, str] = {}
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
            db.execute("CREATE VIRTUAL TABLE words USING fts5(word, tokenize='porter ascii')")
            db.execute("CREATE VIRTUAL TABLE tokens USING fts5vocab(words, instance)")
            self._db = db
        return self._db

    def learn(self, words: Iterable[str]) -> None:
        """Stem the words not known yet (the caller's lookups then find every one)."""
        unknown = set(words).difference(self.stems)
        if not unknown:
            return
        with self._lock:
            if len(self.stems) + len(unknown) > _FORGET_AT:
                self.stems.clear()
            found = {w: w for w in unknown}  # kept as they are unless FTS5 stems them below
            asked = [w for w in unknown if SHORTEST <= len(w) <= LONGEST and w.isascii() and w.isalnum()]
            if asked:
                db = self._connection()
                db.execute("BEGIN")
                try:
                    # One document: token i of it is word i (each word is one ASCII token).
                    db.execute("INSERT INTO words(rowid, word) VALUES (1, ?)", (" ".join(asked),))
                    for term, offset in db.execute("SELECT term, offset FROM tokens"):
                        found[asked[offset]] = term
                finally:
                    db.execute("ROLLBACK")  # nothing kept: the next batch starts from an empty table
            self.stems.update(found)


_STEMMER = _Stemmer()


def stem(word: str) -> str:
    """The stem of one folded word (`agents` -> `agent`, `learning` -> `learn`)."""
    stems = _STEMMER.stems
    found = stems.get(word)
    if found is None:
        _STEMMER.learn((word,))
        found = _STEMMER.stems.get(word, word)
    return found


def stem_string(words: str) -> str:
    """A word string (` w1 w2 ... `, words separated by single spaces) with every word stemmed,
    spaced the same way; a `|` between authors' names is kept (it is shorter than any stem)."""
    split = words.split(" ")
    try:
        return " ".join(map(_STEMMER.stems.__getitem__, split))
    except KeyError:  # words not met before: stemmed together, then looked up one by one
        _STEMMER.learn(split)
        return " ".join(map(stem, split))
