"""The arXiv ids people paste, in every form they come in, read into (id, version).

    2511.02810   2511.02810v2   hep-th/9901001v1   math.GT/0309136 (read as math/0309136)
    arXiv:2511.02810   arxiv: 2511.02810v2   arXiv:2511.02810 [cs.LG] (arXiv's "Cite as")
    https://arxiv.org/abs/2511.02810v2   arxiv.org/pdf/2511.02810v2.pdf   (abs, pdf, html, format, src;
    www. and export. hosts; a query or fragment after it is ignored)
    10.48550/arXiv.2511.02810   https://doi.org/10.48550/arXiv.2511.02810   (arXiv's own DOIs)

One helper for the command line and the app alike, so both accept the same forms."""

from __future__ import annotations

import re

from reader.errors import ReaderError
from reader.models import split_version

_PREFIX = re.compile(r"^arxiv:\s*", re.IGNORECASE)
_URL = re.compile(
    r"^(?:https?://)?(?:www\.|export\.)?arxiv\.org/(?:abs|pdf|html|format|src)/(?P<ref>[^?#]+?)(?:\.pdf)?/?(?:[?#].*)?$",
    re.IGNORECASE,
)
_CITE_AS_CLASS = re.compile(r"\s*\[[\w.\- ]*\]$")  # `arXiv:2511.02810 [cs.LG]`: the class, not the id
_DOI = re.compile(r"^(?:(?:https?://)?(?:dx\.)?doi\.org/|doi:\s*)?10\.48550/arxiv\.(?P<ref>.+)$", re.IGNORECASE)


_SUBJECT_CLASS = re.compile(r"^([a-z][a-z\-]*)\.[A-Z]{2}/")


def canonical_id(paper_id: str) -> str:
    """An old-style id without the subject class people wrote in it (`cs.DB/0003005` is
    `cs/0003005`): arXiv answers under the archive alone, so only that form is recognised."""
    return _SUBJECT_CLASS.sub(r"\1/", paper_id)


class PaperIdError(ReaderError):
    """Text that is not an arXiv id in any form we read."""


def parse_paper_id(text: str) -> tuple[str, int | None]:
    """(`2511.02810`, 2) from any of the forms above; PaperIdError (one line) when it is none."""
    ref = text.strip().strip("<>")
    for pattern in (_URL, _DOI):
        match = pattern.match(ref)
        if match:
            ref = match.group("ref")
            break
    else:
        ref = _CITE_AS_CLASS.sub("", _PREFIX.sub("", ref))
    try:
        paper_id, version = split_version(ref)
    except ValueError:
        raise PaperIdError(
            f"{text!r} is not an arXiv id (like 2609.12345, 2609.12345v2, arXiv:2609.12345, hep-th/9901001 or an arxiv.org/abs/ link)"
        ) from None
    if version == 0:
        raise PaperIdError(f"{text!r}: arXiv versions start at v1")
    return canonical_id(paper_id), version
