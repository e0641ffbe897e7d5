"""The arXiv paper a bibliography entry names, when it names one: from an arXiv link, an
`arXiv:ID` in its text (with or without the colon or a space, new or old-style, with or without
a version), DBLP's `CoRR, abs/ID`, or arXiv's own DOI (10.48550/arXiv.ID)."""

from __future__ import annotations

import re

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
