"""BibTeX entries in arXiv's own shape (`@misc` with eprint, archivePrefix, primaryClass), that
plain bibtex and pdflatex accept and that can run no TeX whatever the feed sent.

Text is escaped by `reader.core.latex` (see there for what happens to each character, math,
capital letters and logos). Authors are joined with ` and `, each written `Family, Given` or
`Family, Jr., Given` (split by `citation.name_parts`), so that bibtex, biber, pybtex and
bibtexparser agree on every part; a name kept whole (a collaboration, 张伟) is braced; "et al."
becomes `and others`. Keys are given by `reader.core.citekeys` (and recorded by the store).

`eprint` is printed by biblatex only: plain, alpha, unsrt, ieeetr and plainnat print no eprint, so
by default the id is also written as `howpublished = {arXiv:ID [category]}`, which they print, and
biblatex, which would print it as well, is told by the entry's `options = {eprint=false}` to leave
its eprint line out: every one of them shows the id once (plainnat and biblatex also print the url).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from reader.core import citation
from reader.core.citekeys import with_keys
from reader.core.latex import escape_plain, escape_text
from reader.models import Paper


def _name(name: str, unicode: bool) -> str:
    """A name as bibtex, biber, pybtex and bibtexparser all split it: `Family, Given` or
    `Family, Jr., Given`; a name kept whole is braced when it has more than one word."""
    parts = citation.name_parts(name)
    if parts.literal:
        escaped = escape_plain(parts.literal, unicode=unicode)
        several = len(escaped.split()) > 1 or citation.is_cjk_name(parts.literal)
        return "{" + escaped + "}" if several else escaped
    family = escape_plain(parts.family, unicode=unicode)
    if parts.family_first and (len(family.split()) > 1 or family[:1].islower()):
        family = "{" + family + "}"  # 佐藤 -> Zuo Teng: one family name, never a particle
    given = escape_plain(parts.given, unicode=unicode)
    return ", ".join([family, parts.suffix, given] if parts.suffix else [family, given])


def authors_field(paper: Paper, *, unicode: bool = False) -> str:
    names, others = citation.authors(paper)
    escaped = [_name(name, unicode) for name in names] or ["{Anonymous}"]
    return " and ".join(escaped + (["others"] if others else []))


# BibTeX styles print the DOI as text when the url package is not loaded: only characters that
# are safe there (no `_`, `%`, `#`, `&`, `~`, `^`, braces or backslash).
_TEX_SAFE_DOI = re.compile(r"10\.\d{4,9}/[A-Za-z0-9.;()/:<>+\-]+")


def entry(paper: Paper, key: str, *, unicode: bool = False, tags: Sequence[str] = (), note: str = "", print_arxiv_id: bool = True) -> str:
    """One `@misc` entry; every value has its shape (id, category, DOI, year) or is escaped text.
    `print_arxiv_id`: also the fields that make every style print the id (see above); without
    them, arXiv's own shape, whose id only biblatex prints."""
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
    if print_arxiv_id:  # id and category have their shapes: nothing to escape
        fields += [("howpublished", citation.arxiv_label(paper)), ("options", "eprint=false")]
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
    print_arxiv_id: bool = True,
) -> str:
    """A .bib file for the papers that can be cited (see `citation.exportable`). `tags` and `notes`
    (paper id -> the user's) become `keywords` and `annote`; `keys` (paper id -> key) are the
    recorded keys (a paper without one is given one here, unique in the file); `print_arxiv_id`
    as for `entry`."""
    real = citation.exportable(papers)
    keys = with_keys(real, keys)
    return "\n".join(
        entry(
            p, keys[p.id], unicode=unicode, tags=citation.tags_of(p, tags), note=citation.note_of(p, notes), print_arxiv_id=print_arxiv_id
        )
        for p in real
    )
