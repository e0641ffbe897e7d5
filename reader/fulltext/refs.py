"""The arXiv paper a bibliography entry names, when it names one: from an arXiv link, an
`arXiv:ID` in its text, or arXiv's own DOI (10.48550/arXiv.ID)."""

from __future__ import annotations

import re

from reader.ids import PaperIdError, parse_paper_id

_ID = r"(?:\d{4}\.\d{4,5}|[a-z][a-z-]*(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?"
_IN_TEXT = re.compile(
    rf"(?:arxiv\s*:\s*|arxiv\.org/(?:abs|pdf|html)/|10\.48550/arxiv\.)(?P<id>{_ID})(?![\d])",
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
    """The first arXiv id the text names (`arXiv:2302.04761`, an arxiv.org link, an arXiv DOI)."""
    for match in _IN_TEXT.finditer(text):
        found = _checked(match.group("id"))
        if found:
            return found
    return None
