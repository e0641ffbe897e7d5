"""What the search index stores for one paper, made from its JSON record as the shard holds it.

The full-text columns must hold exactly the words core/query.py's `search_text` gives the scan
(the reference): SQLite's `ascii` tokenizer splits ASCII text where `word_string` does (runs of
ASCII letters and digits, lower-cased), so plain ASCII text goes in as it is and only other text
is folded here first. Its `porter` wrapper then stems every token, the query's too, with the
code the scan's stems come from (core/stem.py). Codes (categories, ids) are whole tokens: their
punctuation is spelled with private-use characters, which the tokenizer keeps inside a token and
no query word holds (stemmed alike on both sides, a code still matches only itself).
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from reader.core.query import code_tokens, date_key
from reader.core.text import fold
from reader.models import Paper

# The full-text columns, in order: the scan's TEXT_FIELDS, then the user's note.
COLUMNS = ("ti", "abs", "au", "co", "jr", "cat", "id", "note")
CARD_ABSTRACT_CHARS = 500
CARD_AUTHORS = 3
CARD_AFFILIATIONS = 5
# Between two authors: a token no query can hold, so a phrase never runs from one name on.
AUTHOR_SEPARATOR = " \ue002 "
_NOT_CODE_CHAR = re.compile(r"[^a-z0-9]")
_ASCII_CODE = {c: f"\ue000{c:x}\ue001" for c in range(128) if not chr(c).isalnum() or chr(c).isupper()}
_CODED_DOT = _ASCII_CODE[ord(".")]
LIST_MARK = "\x1f"  # between names in a card column (feed text never holds control characters)


def prose(text: str) -> str:
    """Text for a word column: tokenized by SQLite exactly as word_string splits it (the ASCII
    letters and digits of the folded text, non-ASCII letters spelled as word_string spells them,
    everything else a separator), without word_string's whole-text regex passes."""
    if text.isascii() and "\\" not in text:
        return text
    folded = fold(text)
    if folded.isascii():
        return folded
    return _NON_ASCII_RUN.sub(_spell_non_ascii, folded)


class _NonAsciiSpelling(dict):
    """code point -> `x3b1x` for a letter or digit (as word_string spells it), a space otherwise."""

    def __missing__(self, point: int) -> str:
        spelled = self[point] = f"x{point:x}x" if chr(point).isalnum() else " "
        return spelled


_NON_ASCII_RUN = re.compile(r"[^\x00-\x7f]+")
_NON_ASCII_SPELLING = _NonAsciiSpelling()


def _spell_non_ascii(run: re.Match[str]) -> str:
    return run.group().translate(_NON_ASCII_SPELLING)


def code(token: str) -> str:
    """One folded code as one token: `cs.ai` -> `cs\\ue0002e\\ue001ai`."""
    if token.isascii():
        return token.translate(_ASCII_CODE)
    return _NOT_CODE_CHAR.sub(lambda m: f"\ue000{ord(m.group()):x}\ue001", token)


def _authors_column(names: list[str]) -> str:
    together = "".join(names)
    if together.isascii() and "\\" not in together:  # most papers: every name as it is
        return AUTHOR_SEPARATOR.join(names)
    return AUTHOR_SEPARATOR.join([prose(name) for name in names])


@lru_cache(maxsize=4096)
def _category_column(categories: tuple[str, ...]) -> str:
    return " ".join(code(t) for t in code_tokens(categories))


@dataclass(frozen=True, slots=True)
class Card:
    """What a paper's card in a list shows, without the paper's whole record."""

    id: str
    version: int
    primary_category: str
    published: str  # YYYY-MM-DD of v1
    title: str
    abstract: str  # its first CARD_ABSTRACT_CHARS characters
    authors: tuple[str, ...]  # the first CARD_AUTHORS names
    author_count: int
    affiliations: tuple[str, ...]  # the first CARD_AFFILIATIONS distinct ones, in order
    affiliation_count: int
    demo: bool = False  # a paper of the bundled demo set (no arXiv id)


def card_of(paper: Paper) -> Card:
    """The card of a record in memory (the demo set; the cache before its index is built)."""
    affiliations = paper.affiliations
    return Card(
        paper.id,
        paper.version,
        paper.primary_category,
        paper.published[:10],
        paper.title,
        paper.abstract[:CARD_ABSTRACT_CHARS],
        tuple(a.name for a in paper.authors[:CARD_AUTHORS]),
        len(paper.authors) + paper.extra_authors,
        tuple(affiliations[:CARD_AFFILIATIONS]),
        len(affiliations) + paper.extra_affiliations,
        paper.demo,
    )


class Row:
    """One paper, ready to insert: full-text values (without the note), date key, card values
    as the cards table holds them (names joined by LIST_MARK; a Card object is made only when a
    card is asked for), and a fingerprint of the record it was made from."""

    __slots__ = ("card", "date", "id", "source", "text")

    def __init__(self, pid: str, text: tuple[str, ...], date: str, card: tuple, source: int):
        self.id, self.text, self.date, self.card, self.source = pid, text, date, card, source

    def fingerprint(self, note: str) -> int:
        """Changes whenever anything stored for the paper would: unchanged papers are skipped."""
        if not note:
            return self.source  # the CRC of nothing more: its start value
        return zlib.crc32(note.encode("utf-8", "surrogatepass"), self.source)


def _id_column(pid: str) -> str:
    if pid.isascii() and pid.replace(".", "").isdigit():  # a new-style id: folds to itself, one token
        return pid.replace(".", _CODED_DOT)
    return " ".join([code(t) for t in fold(pid).split()])


def row_of(doc: dict[str, Any]) -> Row:
    """The index row of one stored record. Raises (KeyError, TypeError, ValueError,
    AttributeError, IndexError) on a record the store could not read either: the caller skips it."""
    pid, title, abstract, published = doc["id"], doc["title"], doc["abstract"], doc["published"]
    authors = doc["authors"]
    names = [name for name, _ in authors]
    every_affiliation = [a for _, affs in authors for a in affs]
    affiliations = list(dict.fromkeys(every_affiliation))
    categories = doc["categories"]
    comment, journal_ref = doc.get("comment") or "", doc.get("journal_ref") or ""
    text = (
        prose(title),
        prose(abstract),
        _authors_column(names),
        prose(comment),
        prose(journal_ref),
        _category_column(tuple(categories)),  # a few thousand combinations among 100,000 papers
        _id_column(pid),
    )
    version, primary = int(doc["version"]), str(doc["primary_category"])
    card = (
        pid,
        version,
        primary,
        published[:10],
        title,
        abstract[:CARD_ABSTRACT_CHARS],
        LIST_MARK.join(names[:CARD_AUTHORS]),
        len(names),
        LIST_MARK.join(affiliations[:CARD_AFFILIATIONS]),
        len(affiliations),
        str(doc.get("updated") or published),
    )
    # Everything the row is made from (the row follows from it), with marks between the parts.
    source = "\x1f".join(
        [
            pid,
            title,
            abstract,
            comment,
            journal_ref,
            str(version),
            primary,
            published,
            str(doc.get("updated")),
            *categories,
            "\x1e",
            *names,
            "\x1e",
            *every_affiliation,
        ]
    )
    return Row(pid, text, date_key(published), card, zlib.crc32(source.encode("utf-8", "surrogatepass")))
