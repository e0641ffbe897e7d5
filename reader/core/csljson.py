"""CSL-JSON for citeproc tools (Zotero, pandoc, citeproc-js/py): the fields of the BibTeX entry.

Items have the shape Zotero maps to its Preprint type: `type: "article"`, `publisher: "arXiv"`
(the repository), `number: "arXiv:ID"` (the archive id), `DOI`, `URL`, `issued`. The arXiv
categories go in `categories`, the user's tags in `keyword` (comma-separated), the journal
reference in `note` (as the BibTeX `note`), the user's note in `annote`. `id` and `citation-key`
are the BibTeX key, so a paper has the same key in every format. Authors are `family`/`given`
(and `suffix`), split as in BibTeX (see `citation.name_parts`), or `literal` for a name kept whole
(a collaboration, 张伟).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from reader.core import citation
from reader.core.citekeys import with_keys
from reader.core.tex_decode import decode_tex
from reader.models import Paper


def item(paper: Paper, key: str, *, tags: Sequence[str] = (), note: str = "") -> dict:
    data: dict = {"id": key, "citation-key": key, "type": "article", "title": citation.text(decode_tex(paper.title))}
    names, _ = citation.authors(paper)
    people = []
    for name in names:
        parts = citation.name_parts(name)
        if parts.literal:
            people.append({"literal": parts.literal})
        else:
            person = {"family": parts.family, "given": parts.given}
            people.append(person | {"suffix": parts.suffix} if parts.suffix else person)
    if people:
        data["author"] = people
    day = citation.published(paper)
    if day is not None:
        data["issued"] = {"date-parts": [[day.year, day.month, day.day]]}
    data["publisher"] = "arXiv"
    data["number"] = f"arXiv:{paper.id}"
    doi = citation.doi(paper)
    if doi:
        data["DOI"] = doi
    data["URL"] = citation.abs_url(paper)
    abstract = citation.text(paper.abstract)
    if abstract:
        data["abstract"] = abstract
    data["categories"] = citation.categories(paper)
    if tags:
        data["keyword"] = ", ".join(tags)
    journal = citation.text(paper.journal_ref)
    if journal:
        data["note"] = f"Published in {journal}"
    if note:
        data["annote"] = note
    return data


def items(
    papers: Iterable[Paper],
    *,
    tags: dict[str, list[str]] | None = None,
    notes: dict[str, str] | None = None,
    keys: dict[str, str] | None = None,
) -> list[dict]:
    real = citation.exportable(papers)
    keys = with_keys(real, keys)
    return [item(p, keys[p.id], tags=citation.tags_of(p, tags), note=citation.note_of(p, notes)) for p in real]


def export(
    papers: Iterable[Paper],
    *,
    tags: dict[str, list[str]] | None = None,
    notes: dict[str, str] | None = None,
    keys: dict[str, str] | None = None,
) -> str:
    """A CSL-JSON file (an array of items) for the papers that can be cited."""
    return json.dumps(items(papers, tags=tags, notes=notes, keys=keys), ensure_ascii=False, indent=2) + "\n"
