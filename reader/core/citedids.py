"""The arXiv paper a library entry cites, however the entry names it: an id field (`eprint`,
`arxivId`, the academic-homepage template's `arxiv`, `arxiv_id`), an arxiv.org link with or
without its scheme, arXiv's DOI, or `arXiv:ID` (`arXiv preprint ID`, `Ar{X}iv:ID [stat.ML]`,
DBLP's `CoRR abs/ID`) in any field but the abstract and the title, or an id alone in `pages`
(or `eid`, `number`, `volume`) of an entry whose journal is arXiv (ADS's `arXiv e-prints`). TeX braces and commands are
read through first, and old-style ids lose the subject class people write in them
(`cs.DB/0003005` is `cs/0003005`, see ids.canonical_id). Used by `reader import` (BibTeX, RIS,
CSL-JSON) and by `export --update` to know the papers a .bib file has."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from reader.ids import canonical_id
from reader.models import ID_PATTERN, split_version

# An arXiv id as people write it: `2511.02810`, `2511.02810v2`, `hep-th/9901001`, `cs.DB/0003005`.
_ID = rf"({ID_PATTERN})(?:v\d+)?"
# `arXiv:ID`, and the words Google Scholar, arXiv and @string macros put between (`arXiv preprint
# arXiv:ID`, `arXiv e-prints ID`, `arxiv # {ID}`).
TEXT_PATTERN = re.compile(rf"(?i:arxiv)(?:\s*(?i:preprint|e-?prints?|abs)\b)*[\s:./]*{_ID}(?!\d)")
# An abs, pdf or html link (http, https or none, inside `\url{...}` too), any version.
LINK_PATTERN = re.compile(rf"(?:https?://)?(?:www\.|export\.)?arxiv\.org/(?:abs|pdf|html)/{_ID}(?!\d)", re.IGNORECASE)
DOI_PATTERN = re.compile(rf"10\.48550/arxiv\.{_ID}(?!\d)", re.IGNORECASE)
# A value that is an id: `arXiv:ID [cs.LG]` as arXiv's "Cite as" writes it, or a link.
_ALONE = re.compile(rf"^(?i:arxiv:\s*)?{_ID}(?:\s*\[[\w.\- ]*\])?$")
_LINK_ALONE = re.compile(rf"^{LINK_PATTERN.pattern}(?:\.pdf)?/?$", re.IGNORECASE)
_DBLP_VOLUME = re.compile(rf"^abs/{_ID}$")  # DBLP's `journal = {CoRR}, volume = {abs/ID}`
# A journal that is arXiv itself (ADS's `arXiv e-prints`), whose id stands alone in another field.
_ARXIV_JOURNAL = re.compile(r"^(?i:arxiv)(?:\s+(?i:e-?prints?|preprints?))?$")
ALONE_FIELDS = ("pages", "eid", "number", "volume")  # ADS: `journal = {arXiv e-prints}, pages = {astro-ph/0511773}`
_TEX_COMMAND = re.compile(r"\\[A-Za-z]+\s*")

# Where each way of citing is looked for first (the first hit wins); then every other field.
ID_FIELDS = ("eprint", "arxivid", "arxiv", "arxiv_id", "arxiv-id")  # `eprint`: see _eprint_is_arxiv
LINK_FIELDS = ("url", "howpublished", "note", "pdf", "link", "html")
DOI_FIELDS = ("doi", *LINK_FIELDS)
TEXT_FIELDS = ("journal", "note", "howpublished", "number")
NOT_SEARCHED = frozenset({"abstract", "title"})  # they may name other papers


def plain(value: str) -> str:
    """A field's text without TeX braces and commands: `Ar{X}iv` is `ArXiv`, `\\url{...}` the link."""
    if "\\" in value:
        value = _TEX_COMMAND.sub("", value)
    return value.replace("{", "").replace("}", "")


def found_id(pattern: re.Pattern[str], text: str) -> str | None:
    """The unversioned id of the first hit of `pattern` in `text` that is a real arXiv id."""
    for match in pattern.finditer(text):
        try:
            return canonical_id(split_version(match.group(1))[0])
        except ValueError:  # `HEP-TH/9901001`: old ids are lower case
            continue
    return None


def arxiv_id(text: str) -> str | None:
    """The unversioned id a value that is one names (`2511.02810`, `arXiv:2511.02810 [cs.LG]`,
    an arxiv.org link); else None."""
    text = plain(text).strip()
    return found_id(_ALONE, text) or found_id(_LINK_ALONE, text)


def _eprint_is_arxiv(fields: Mapping[str, str]) -> bool:
    """`eprint` holds an arXiv id unless `archivePrefix` or biblatex's `eprinttype` names
    another archive (HAL, PubMed, ...)."""
    archive = fields.get("archiveprefix", fields.get("eprinttype", "arxiv"))
    return plain(archive).strip().casefold() == "arxiv"


def _in_order(fields: Mapping[str, str], first: Iterable[str]) -> list[str]:
    first = [name for name in first if name in fields]
    return first + [name for name in fields if name not in first and name not in NOT_SEARCHED]


def cited_id(fields: Mapping[str, str]) -> tuple[str, str] | None:
    """(the arXiv id an entry's fields (lower-case names) cite, how it was found), first hit wins:
    "id" (an id field), "link" (an arxiv.org link), "doi" (arXiv's DOI), "text" (`arXiv:ID`);
    None when it cites none."""
    for name in ID_FIELDS:
        if name in fields and (name != "eprint" or _eprint_is_arxiv(fields)):
            found = arxiv_id(fields[name])
            if found:
                return found, "id"
    texts = {name: plain(value) for name, value in fields.items() if name not in NOT_SEARCHED}
    for kind, first, pattern in (
        ("link", LINK_FIELDS, LINK_PATTERN),
        ("doi", DOI_FIELDS, DOI_PATTERN),
        ("text", TEXT_FIELDS, TEXT_PATTERN),
    ):
        for name in _in_order(texts, first):
            found = found_id(pattern, texts[name])
            if found:
                return found, kind
    journal = plain(fields.get("journal", "")).strip()
    if journal.casefold() == "corr":
        found = found_id(_DBLP_VOLUME, plain(fields.get("volume", "")).strip())
        if found:
            return found, "text"
    elif _ARXIV_JOURNAL.match(journal):
        for name in ALONE_FIELDS:
            found = arxiv_id(fields.get(name, ""))
            if found:
                return found, "text"
    return None
