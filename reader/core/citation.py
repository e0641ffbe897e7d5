"""What every export format (BibTeX, RIS, CSL-JSON) says about a paper, each value checked for its
shape. A value that is not what it claims to be (a category with a brace, a DOI with a space, a
year 0001) is left out rather than passed on: feed text is untrusted."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date

from reader.models import VERSIONED_ID, Paper
from reader.sanitize import clean_text

CATEGORY = re.compile(r"[a-z][a-z\-]*(\.[A-Za-z][A-Za-z\-]*)?")
# A DOI: `10.` + registrant + `/` + a suffix of printable characters without spaces. Formats that
# print it as text (BibTeX) narrow this further.
DOI = re.compile(r"10\.\d{4,9}/[\x21-\x7e]+")


def exportable(papers: Iterable[Paper]) -> list[Paper]:
    """The papers that can be cited, each once: an arXiv id, not a demo paper (demo papers have none)."""
    seen: dict[str, Paper] = {}
    for paper in papers:
        if not paper.demo and VERSIONED_ID.fullmatch(paper.id) is not None:
            seen.setdefault(paper.id, paper)
    return list(seen.values())


def categories(paper: Paper) -> list[str]:
    """The paper's arXiv categories that have a category's shape, the primary one first."""
    ordered = [paper.primary_category, *paper.categories]
    return list(dict.fromkeys(c for c in ordered if CATEGORY.fullmatch(c)))


def primary_category(paper: Paper) -> str | None:
    return paper.primary_category if CATEGORY.fullmatch(paper.primary_category) else None


def doi(paper: Paper) -> str | None:
    return paper.doi if paper.doi and DOI.fullmatch(paper.doi) else None


def published(paper: Paper) -> date | None:
    """The day of v1, when it is a real date from arXiv's time (1991 on)."""
    try:
        day = date.fromisoformat(paper.published[:10])
    except ValueError:
        return None
    return day if day.year >= 1991 else None


def abs_url(paper: Paper) -> str:
    """The abstract page, built from the validated id, never taken from feed text."""
    return f"https://arxiv.org/abs/{paper.id}"


def text(value: str | None) -> str:
    """Feed text for formats that carry plain text (RIS, CSL-JSON): one line, no control characters."""
    return clean_text(value)


def tags_of(paper: Paper, tags: dict[str, list[str]] | None) -> list[str]:
    return [t for t in (text(tag) for tag in (tags or {}).get(paper.id, [])) if t]


def note_of(paper: Paper, notes: dict[str, str] | None) -> str:
    """The user's note as written (line breaks kept), without control characters."""
    note = (notes or {}).get(paper.id) or ""
    return "\n".join(clean_text(line) for line in note.splitlines()).strip()
