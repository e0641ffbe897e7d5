"""What every export format (BibTeX, RIS, CSL-JSON) says about a paper, each value checked for its
shape. A value that is not what it claims to be (a category with a brace, a DOI with a space, a
year 0001) is left out rather than passed on: feed text is untrusted."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date
from functools import lru_cache
from typing import NamedTuple

from reader.core.sanitize import clean_text
from reader.core.tex_decode import decode_tex
from reader.core.writing_systems import is_cjk
from reader.models import VERSIONED_ID, Paper

NAME_SUFFIXES = frozenset({"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"})
CORPORATE = re.compile(
    r"(?i)\b(collaboration|consortium|team|group|inc|ltd|university|institute|association|committee|project|"
    r"foundation|corporation|laboratory|lab|initiative|network|organization|organisation|society|council)\b"
)
ET_AL = re.compile(r"(?i)\s*\bet\.?\s*al\b\.?")
_AND = re.compile(r"(?i)\band\b")  # "Smith and Jones": two people in one name, kept as written
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


def arxiv_label(paper: Paper) -> str:
    """The paper's id as arXiv asks to be cited: `arXiv:2609.10042 [cs.LG]`, the primary category
    after the id; an old-style id names its archive, so only a subject class is added to it
    (`arXiv:hep-th/9901001`, `arXiv:math/9910001 [math.AT]`)."""
    primary = primary_category(paper)
    archive, slash, _ = paper.id.partition("/")
    return f"arXiv:{paper.id}" if primary is None or (slash and primary == archive) else f"arXiv:{paper.id} [{primary}]"


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


def authors(paper: Paper) -> tuple[list[str], bool]:
    """The author names as plain text (TeX accents read), and whether "et al." or a count of
    unlisted authors says there are more."""
    names, others = [], paper.extra_authors > 0
    for author in paper.authors:
        name, more = _author_name(author.name)
        others = others or more
        if name:
            names.append(name)
    return names, others


def first_author(paper: Paper) -> str:
    """The first author's name as `authors` gives it ("" when there is none)."""
    for author in paper.authors:
        name, _ = _author_name(author.name)
        if name:
            return name
    return ""


def _author_name(name: str) -> tuple[str, bool]:
    """A name as plain text, and whether it said "et al."."""
    more = ET_AL.search(name) is not None
    if more:
        name = ET_AL.sub("", name).strip(" ,")
    return text(decode_tex(name)), more


class Name(NamedTuple):
    """A person's name split as every format writes it (BibTeX `Family, Jr., Given`, RIS
    `Family, Given, Jr.`, CSL-JSON family/given/suffix), or `literal`: a name kept whole (a
    collaboration, a single word, 张伟)."""

    family: str = ""  # with its particles: "van der Waals"
    given: str = ""
    suffix: str = ""  # Jr., Sr., II, III, IV
    literal: str = ""
    family_first: bool = False  # written family name first (佐藤 花子)


@lru_cache(maxsize=4096)  # an export of many papers meets the same names again and again
def name_parts(name: str) -> Name:
    """How a name from arXiv splits. Written given names first (`Samuel Davis Jr.`, `Samuel Davis,
    Jr.`, `Jun-ichi Kato`): the family name is the last word with the lower-case particles before
    it (`van der Waals`), a generational suffix apart; hyphenated and lower-case parts of the given
    names stay given. Any other comma keeps a name whole. In Han, Kana or Hangul characters with a
    space, family name first (`佐藤 花子`); without one (`张伟`), kept whole."""
    if CORPORATE.search(name) or _AND.search(name):
        return Name(literal=name)
    if not name.isascii() and is_cjk_name(name):
        family, _, given = name.partition(" ")
        return Name(family=family, given=" ".join(given.split()), family_first=True) if given else Name(literal=name)
    family_name, comma, suffix = name.rpartition(",")
    if comma and suffix.strip().lower() in NAME_SUFFIXES and "," not in family_name:
        return _given_first(family_name.split(), suffix.strip()) or Name(literal=name)  # `Samuel Davis, Jr.`
    if "," in name:
        return Name(literal=name)  # not a name's shape: kept as written
    parts = name.split()
    suffix = parts.pop() if len(parts) > 1 and parts[-1].lower() in NAME_SUFFIXES else ""
    return _given_first(parts, suffix) or Name(literal=name)


def _given_first(parts: list[str], suffix: str) -> Name | None:
    if len(parts) < 2 or len(parts) > 5 or not any(ch.isalpha() for ch in parts[-1]):
        return None
    # The family name is the last word, with the lower-case particles before it (van der Waals).
    start = len(parts) - 1
    while start > 1 and parts[start - 1][:1].islower():
        start -= 1
    return Name(family=" ".join(parts[start:]), given=" ".join(parts[:start]), suffix=suffix)


def is_cjk_name(name: str) -> bool:
    """Written only in Han, Kana or Hangul characters (and spaces)."""
    letters = name.replace(" ", "")
    return bool(letters) and all(map(is_cjk, letters))
