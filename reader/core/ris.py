"""RIS records for reference managers (Zotero, EndNote, Mendeley): the fields of the BibTeX entry,
as plain UTF-8 text, one `TAG  - value` line each.

RIS has no preprint type: records are `UNPB` (unpublished work) with `T2  - arXiv`, the arXiv id in
`AN` (`arXiv:2511.02810`) and `M3  - Preprint`. Written here, not by rispy's dumps, which writes a
value's line break as it is (a feed's title could start a record of its own) and numbers records. Authors are `Family, Given` or `Family, Given, Jr.`
(split as in BibTeX, see `citation.name_parts`), a name kept whole as written; the user's tags and
the arXiv categories are keywords (`KW`, one per line, tags first, a `;` in a tag written `,`); the journal reference and the
user's note are notes (`N1`). Every value is one line: feed text cannot start a record or a tag.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from reader.core import citation
from reader.core.citekeys import with_keys
from reader.core.tex_decode import decode_tex
from reader.models import Paper


def record(paper: Paper, key: str, *, tags: Sequence[str] = (), note: str = "") -> str:
    lines = [("TY", "UNPB"), ("ID", key), ("TI", citation.text(decode_tex(paper.title)))]
    names, _ = citation.authors(paper)
    for name in names:
        parts = citation.name_parts(name)
        lines.append(("AU", parts.literal or ", ".join(filter(None, (parts.family, parts.given, parts.suffix)))))
    day = citation.published(paper)
    if day is not None:
        lines += [("PY", f"{day.year:04d}"), ("DA", f"{day.year:04d}/{day.month:02d}/{day.day:02d}")]
    lines += [("T2", "arXiv"), ("AN", f"arXiv:{paper.id}"), ("M3", "Preprint")]
    doi = citation.doi(paper)
    if doi:
        lines.append(("DO", doi))
    lines.append(("UR", citation.abs_url(paper)))
    abstract = citation.text(paper.abstract)
    if abstract:
        lines.append(("AB", abstract))
    # Zotero splits a keyword at `;`: a tag with one stays one tag with a comma instead.
    keywords = [tag.replace(";", ",") for tag in tags] + citation.categories(paper)
    lines += [("KW", keyword) for keyword in dict.fromkeys(keywords)]
    journal = citation.text(paper.journal_ref)
    if journal:
        lines.append(("N1", f"Published in {journal}"))
    if note:
        lines.append(("N1", " ".join(note.split())))  # RIS values are one line
    lines.append(("ER", ""))
    return "".join(f"{tag}  - {value}\n" for tag, value in lines)


def export(
    papers: Iterable[Paper],
    *,
    tags: dict[str, list[str]] | None = None,
    notes: dict[str, str] | None = None,
    keys: dict[str, str] | None = None,
) -> str:
    """An .ris file for the papers that can be cited; `ID` is the paper's BibTeX key, so a paper
    has the same key in every format."""
    real = citation.exportable(papers)
    keys = with_keys(real, keys)
    return "\n".join(record(p, keys[p.id], tags=citation.tags_of(p, tags), note=citation.note_of(p, notes)) for p in real)
