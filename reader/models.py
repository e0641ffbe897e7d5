"""The paper record shared by every layer, and its JSON form in the cache; arXiv ids, versions
and links. The cache index's packed columns are in cache_index.py."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

# The archives of old-style ids (`hep-th/9901001`, before April 2007), the only names such an id
# starts with: a PDF's `quantph/0312148` (its hyphen lost) names no paper. In those with subject
# classes of two capitals, people write the class in the id too (`math.GT/0309136`).
OLD_ARCHIVES = (
    "acc-phys", "adap-org", "alg-geom", "ao-sci", "astro-ph", "atom-ph", "bayes-an", "chao-dyn", "chem-ph", "cmp-lg",
    "comp-gas", "cond-mat", "cs", "dg-ga", "funct-an", "gr-qc", "hep-ex", "hep-lat", "hep-ph", "hep-th", "math", "math-ph",
    "mtrl-th", "nlin", "nucl-ex", "nucl-th", "patt-sol", "physics", "plasm-ph", "q-alg", "q-bio", "quant-ph", "solv-int",
    "supr-con",
)  # fmt: skip
CLASSED_ARCHIVES = ("cs", "math", "nlin", "q-bio")
OLD_ARCHIVE = rf"(?:(?:{'|'.join(CLASSED_ARCHIVES)})\.[A-Z]{{2}}|{'|'.join(sorted(OLD_ARCHIVES, key=len, reverse=True))})"
# An unversioned id, new style (`2609.12345`, `0704.0001`) or old (above), as a pattern for others
# to build on. `\Z`, not `$`, below: `$` would also accept a trailing newline.
ID_PATTERN = rf"(?:\d{{4}}\.\d{{4,5}}|{OLD_ARCHIVE}/\d{{7}})"
ARXIV_ID = re.compile(rf"^{ID_PATTERN}\Z")
VERSIONED_ID = re.compile(rf"^(?P<id>{ID_PATTERN})(?:v(?P<version>\d{{1,4}}))?\Z")
# An arXiv category: an archive (`cs`, `hep-th`, `q-bio`), optionally a dot and a subject class,
# two capitals (`cs.AI`, `q-bio.NC`) or lower-case words (`physics.comp-ph`, `cond-mat.stat-mech`).
ARXIV_CATEGORY = re.compile(r"[a-z]{1,12}(?:-[a-z]{1,12})?(?:\.(?:[A-Z]{2}|[a-z]{1,12}(?:-[a-z]{1,12})?))?")


def is_category(term: str) -> bool:
    """True for a term shaped like an arXiv category; anything else (control characters,
    braces, ACM or MSC classes) is not one."""
    return ARXIV_CATEGORY.fullmatch(term) is not None


def abs_url(arxiv_id: str, version: int) -> str:
    """The abstract page, built from a validated id: never a link taken from a feed."""
    return f"https://arxiv.org/abs/{arxiv_id}v{version}"


def pdf_url(arxiv_id: str, version: int) -> str:
    return f"https://arxiv.org/pdf/{arxiv_id}v{version}"


def split_version(arxiv_id: str) -> tuple[str, int | None]:
    """`2104.12255v3` -> (`2104.12255`, 3); no version -> None. Raises ValueError when not an arXiv id."""
    match = VERSIONED_ID.match(arxiv_id.strip())
    if match is None:
        raise ValueError(f"not an arXiv id: {arxiv_id!r}")
    version = match.group("version")
    return match.group("id"), int(version) if version else None


@dataclass(slots=True, frozen=True)
class Author:
    name: str
    affiliations: tuple[str, ...] = ()


@dataclass(slots=True)
class Paper:
    """One arXiv paper at one version. Dates are ISO 8601 UTC strings (`2026-09-27T17:59:59Z`)."""

    id: str
    version: int
    title: str
    abstract: str
    authors: tuple[Author, ...]
    categories: tuple[str, ...]
    primary_category: str
    published: str
    updated: str
    comment: str | None = None
    journal_ref: str | None = None
    doi: str | None = None
    abs_url: str = ""
    pdf_url: str = ""
    # Only demo papers carry these: they come from a topic page that listed a few authors and
    # affiliations and counted the rest, not from arXiv.
    extra_authors: int = 0
    listed_affiliations: tuple[str, ...] = ()
    extra_affiliations: int = 0
    demo: bool = field(default=False)

    @property
    def published_date(self) -> date:
        return date.fromisoformat(self.published[:10])

    @property
    def updated_date(self) -> date:
        return date.fromisoformat(self.updated[:10])

    @property
    def affiliations(self) -> list[str]:
        """Every distinct affiliation, in order of first appearance."""
        if self.listed_affiliations:
            return list(self.listed_affiliations)
        return list(dict.fromkeys(a for author in self.authors for a in author.affiliations))

    def to_json(self) -> dict:
        data = {
            "id": self.id,
            "version": self.version,
            "title": self.title,
            "abstract": self.abstract,
            "authors": [[a.name, list(a.affiliations)] for a in self.authors],
            "categories": list(self.categories),
            "primary_category": self.primary_category,
            "published": self.published,
            "updated": self.updated,
            "comment": self.comment,
            "journal_ref": self.journal_ref,
            "doi": self.doi,
            "abs_url": self.abs_url,
            "pdf_url": self.pdf_url,
        }
        return data

    @classmethod
    def from_json(cls, data: dict) -> Paper:
        return cls(
            id=data["id"],
            version=data["version"],
            title=data["title"],
            abstract=data["abstract"],
            authors=tuple(Author(name, tuple(affs)) for name, affs in data["authors"]),
            categories=tuple(data["categories"]),
            primary_category=data["primary_category"],
            published=data["published"],
            updated=data["updated"],
            comment=data.get("comment"),
            journal_ref=data.get("journal_ref"),
            doi=data.get("doi"),
            abs_url=data.get("abs_url", ""),
            pdf_url=data.get("pdf_url", ""),
        )
