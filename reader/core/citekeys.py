"""Citation keys in Google Scholar's form (`vaswani2017attention`), given once to each paper.

A paper's first key is its first author's family name (the one every export writes: a
family-first CJK name's first word), the year of v1 and the first significant word of its title,
in lower-case ASCII letters and digits. A key another paper has, compared ignoring case, takes
the next free suffix: a, b, ..., z, aa, ... The store records every key given (Store.citation_keys),
so a paper keeps its key in every later export: beside any other papers, in any format, and after
a new version changes its title, authors or year.
"""

from __future__ import annotations

import itertools
import re
import string
from collections.abc import Iterable, Iterator, Mapping

from anyascii import anyascii

from reader.core import citation
from reader.core.tex_decode import decode_tex
from reader.models import Paper

STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "how",
        "in",
        "into",
        "is",
        "it",
        "of",
        "on",
        "or",
        "over",
        "the",
        "this",
        "to",
        "towards",
        "via",
        "what",
        "when",
        "where",
        "which",
        "why",
        "with",
        "without",
        "do",
        "does",
        "can",
        "we",
        "our",
    ]
)
LONGEST_PART = 40  # letters of the name and of the word: a feed's endless name makes no endless key


def _ascii_word(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "", anyascii(decode_tex(text))).lower()[:LONGEST_PART]


def natural_key(paper: Paper) -> str:
    """`vaswani2017attention`: first author's family name, year of v1, first significant title word."""
    first = citation.first_author(paper)
    parts = citation.name_parts(first)
    surname = _ascii_word(parts.literal or parts.family)
    words = (_ascii_word(w) for w in re.split(r"[\s\-/:]+", re.sub(r"\$[^$]*\$", " ", paper.title)))
    word = next((w for w in words if w and w not in STOP_WORDS), "")
    day = citation.published(paper)
    return (surname or "anon") + (f"{day.year:04d}" if day else "") + word


def assign(papers: Iterable[Paper], given: Mapping[str, str], taken: Iterable[str] = ()) -> dict[str, str]:
    """Keys for the papers `given` (paper id -> key) has none for: unique, ignoring case, among
    themselves, `given`'s keys and `taken`; of papers sharing a natural key, the oldest (by first
    submission) is given it first."""
    used = {key.lower() for key in itertools.chain(given.values(), taken)}
    new: dict[str, str] = {}
    suffixes: dict[str, Iterator[str]] = {}  # per natural key, past the suffixes already used
    for paper in sorted((p for p in papers if p.id not in given), key=lambda p: (p.published, p.id)):
        if paper.id in new:
            continue
        base = key = natural_key(paper)
        while key in used:
            key = base + next(suffixes.setdefault(base, key_suffixes()))
        used.add(key)
        new[paper.id] = key
    return new


def unique_keys(papers: Iterable[Paper], taken: Iterable[str] = ()) -> dict[str, str]:
    """paper id -> key, for papers no key was recorded for (an export without a store)."""
    return assign(papers, {}, taken)


def key_suffixes() -> Iterator[str]:
    """a ... z, aa ... zz, aaa ...: as many as a group needs (an author's name, year and first
    word can be shared by thousands of papers)."""
    for length in itertools.count(1):
        for letters in itertools.product(string.ascii_lowercase, repeat=length):
            yield "".join(letters)


def with_keys(papers: list[Paper], keys: Mapping[str, str] | None) -> dict[str, str]:
    """`keys` (the recorded ones), with new keys for the papers it has none for."""
    known = dict(keys or {})
    known.update(assign(papers, known))
    return known
