"""BibTeX entries in arXiv's own shape (`@misc` with eprint, archivePrefix, primaryClass), that
plain bibtex and pdflatex accept and that can run no TeX whatever the feed sent.

Text is escaped by `reader.core.latex` (see there for what happens to each character, math and
capital letters). Authors are joined with ` and `; corporate names are braced, and so are names
written in Chinese, Japanese or Korean characters (transliterated, family name first as written,
so bibtex sorts and labels them by it); "et al." becomes `and others`. Keys follow Google Scholar
(surname, year, first significant title word, ASCII only); colliding keys get a, b, c in order of
first submission, so a paper keeps its key when newer papers join the file.
"""

from __future__ import annotations

import itertools
import re
import string
from collections.abc import Iterable, Iterator, Sequence

from anyascii import anyascii

from reader.core import citation
from reader.core.latex import decode_tex, escape_plain, escape_text, is_syllable
from reader.models import Paper

STOP_WORDS = frozenset([
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "how", "in", "into", "is", "it", "of", "on",
    "or", "over", "the", "this", "to", "towards", "via", "what", "when", "where", "which", "why", "with",
    "without", "do", "does", "can", "we", "our",
])


def _name(name: str, unicode: bool) -> str:
    escaped = escape_plain(name, unicode=unicode)
    # A name in Han or Hangul characters puts the family name first: braced, bibtex sorts and
    # labels by the whole transliteration rather than by its last syllable.
    if citation.person(name) is None and len(name.split()) > 1 or (not unicode and any(map(is_syllable, name))):
        return "{" + escaped + "}"  # one person to bibtex, never split into first and last names
    return escaped


def authors_field(paper: Paper, *, unicode: bool = False) -> str:
    names, others = citation.authors(paper)
    escaped = [_name(name, unicode) for name in names] or ["{Anonymous}"]
    return " and ".join(escaped + (["others"] if others else []))


def _ascii_word(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "", anyascii(decode_tex(text))).lower()


def base_key(paper: Paper) -> str:
    """`vaswani2017attention`: first author's surname, year of v1, first significant title word."""
    surname = ""
    if paper.authors:
        parts = [p for p in decode_tex(paper.authors[0].name).split() if p.lower().strip(",") not in citation.NAME_SUFFIXES]
        surname = _ascii_word(parts[-1]) if parts else ""
    words = [_ascii_word(w) for w in re.split(r"[\s\-/:]+", re.sub(r"\$[^$]*\$", " ", paper.title))]
    word = next((w for w in words if w and w not in STOP_WORDS), "")
    day = citation.published(paper)
    return (surname or "anon") + (f"{day.year:04d}" if day else "") + word


def unique_keys(papers: Iterable[Paper], taken: Iterable[str] = ()) -> dict[str, str]:
    """paper id -> key, unique case-insensitively among themselves and the `taken` keys (those
    already in a file); collisions get a, b, c by first submission."""
    groups: dict[str, list[Paper]] = {}
    for paper in papers:
        groups.setdefault(base_key(paper), []).append(paper)
    keys: dict[str, str] = {}
    used = {key.lower() for key in taken}
    bases = set(groups) - used  # a base key stays free for the first paper of its group
    for base, group in groups.items():
        group.sort(key=lambda p: (p.published, p.id))
        suffixes = _suffixes()
        key = base
        for paper in group:
            while key in used or (key != base and key in bases):
                key = base + next(suffixes)
            used.add(key)
            keys[paper.id] = key
    return keys


def _suffixes() -> Iterator[str]:
    """a ... z, aa ... zz, aaa ...: as many as a group needs (an author's name, year and first
    word can be shared by thousands of papers)."""
    for length in itertools.count(1):
        for letters in itertools.product(string.ascii_lowercase, repeat=length):
            yield "".join(letters)


# BibTeX styles print the DOI as text when the url package is not loaded: only characters that
# are safe there (no `_`, `%`, `#`, `&`, `~`, `^`, braces or backslash).
_TEX_SAFE_DOI = re.compile(r"10\.\d{4,9}/[A-Za-z0-9.;()/:<>+\-]+")


def entry(paper: Paper, key: str, *, unicode: bool = False, tags: Sequence[str] = (), note: str = "") -> str:
    """One `@misc` entry; every value has its shape (id, category, DOI, year) or is escaped text."""
    fields = [
        ("title", escape_text(paper.title, protect_case=True, unicode=unicode)),
        ("author", authors_field(paper, unicode=unicode)),
    ]
    day = citation.published(paper)
    if day is not None:
        fields.append(("year", f"{day.year:04d}"))
    fields += [("eprint", paper.id), ("archivePrefix", "arXiv")]
    primary = citation.primary_category(paper)
    if primary:
        fields.append(("primaryClass", primary))
    doi = citation.doi(paper)
    if doi and _TEX_SAFE_DOI.fullmatch(doi):
        fields.append(("doi", doi))
    if paper.journal_ref:
        fields.append(("note", "Published in " + escape_text(paper.journal_ref, unicode=unicode)))
    if tags:
        fields.append(("keywords", ", ".join(escape_plain(t, unicode=unicode) for t in tags)))
    if note:
        fields.append(("annote", escape_text(note, unicode=unicode)))
    fields.append(("url", citation.abs_url(paper)))
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return f"@misc{{{key},\n{body},\n}}\n"


def export(
    papers: Iterable[Paper],
    *,
    unicode: bool = False,
    tags: dict[str, list[str]] | None = None,
    notes: dict[str, str] | None = None,
    keys: dict[str, str] | None = None,
) -> str:
    """A .bib file for the papers that can be cited (see `citation.exportable`). `tags` and `notes`
    (paper id -> the user's) become `keywords` and `annote`; `keys` (paper id -> key) overrides
    the keys this module would give."""
    real = citation.exportable(papers)
    keys = {**unique_keys(real), **(keys or {})}
    return "\n".join(
        entry(p, keys[p.id], unicode=unicode, tags=citation.tags_of(p, tags), note=citation.note_of(p, notes))
        for p in real
    )
