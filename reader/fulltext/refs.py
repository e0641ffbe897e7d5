"""The arXiv paper a bibliography entry names, when it names one: from an arXiv link, an
`arXiv:ID` in its text (with or without the colon or a space, new or old-style, with or without
a version), DBLP's `CoRR, abs/ID`, or arXiv's own DOI (10.48550/arXiv.ID). And the entry a page's
reader (html.py) has open: its number, key, label and links, made a block when it ends."""

from __future__ import annotations

import re

from reader.fulltext.clean import printable
from reader.fulltext.document import REFERENCE, Block
from reader.ids import PaperIdError, parse_paper_id
from reader.models import ID_PATTERN

_ID = rf"{ID_PATTERN}(?:v\d+)?"
# `arXiv:2302.04761`, `arXiv: 2302.04761v2`, `arXiv 2001.01234`, `arXiv:hep-th/9108004`, an
# arxiv.org link, arXiv's DOI, and DBLP's form of arXiv papers: `CoRR, abs/1409.0473`.
_IN_TEXT = re.compile(
    rf"(?:arxiv(?:\s*:\s*|\s+)|arxiv\.org/(?:abs|pdf|html)/|10\.48550/arxiv\.|\bcorr\b,?\s*(?:vol\.\s*)?abs/)(?P<id>{_ID})(?![\d])",
    re.IGNORECASE,
)
_LINK = re.compile(r"^(?:https?://)?(?:www\.|export\.)?arxiv\.org/|^(?:https?://)?(?:dx\.)?doi\.org/10\.48550/", re.IGNORECASE)


def _checked(text: str) -> str | None:
    try:
        return parse_paper_id(text)[0]
    except PaperIdError:
        return None


def arxiv_id_in_link(href: str) -> str | None:
    """`https://arxiv.org/abs/2210.03629v3` -> `2210.03629`; None for any other link."""
    href = href.strip()
    if len(href) > 300 or not _LINK.match(href):
        return None
    return _checked(href)


def arxiv_id_in_text(text: str) -> str | None:
    """The first arXiv id the text names (`arXiv:2302.04761`, `CoRR, abs/1409.0473`, an arxiv.org
    link, an arXiv DOI)."""
    for match in _IN_TEXT.finditer(text):
        found = _checked(match.group("id"))
        if found:
            return found
    return None


_BIB_ID = re.compile(r"bib\.bib(\d{1,6})")  # LaTeXML's id of the Nth entry


class OpenReference:
    """The bibliography entry being read: its number and key (from its element's id, `bib.bib57`),
    its label as printed (`[57]`, `Keimer et al. [2015]`) and the arXiv ids of its links."""

    def __init__(self, element_id: str = "") -> None:
        number = _BIB_ID.fullmatch(element_id)
        self.number = int(number.group(1)) if number else None
        self.key = number.group(0) if number else None
        self.label = ""
        self.links: list[str] = []

    def link(self, href: str) -> None:
        found = arxiv_id_in_link(href)
        if found:
            self.links.append(found)

    def block(self, text: str) -> Block | None:
        """The entry as a block, once its text is read; None when it has no text."""
        label, number = self.label, self.number
        if number is not None and label.strip("[]()") != str(number):  # cited as [N], labelled by name and year
            label = f"[{number}] {label}".rstrip()
        text = printable(f"{label} {text}") if label else text
        if not text:
            return None
        found = self.links[0] if self.links else arxiv_id_in_text(text)
        return Block(REFERENCE, text, found, number, self.key)
