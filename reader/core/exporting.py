"""One door to every export format, used by the command line and the app alike."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePath

from reader.models import Paper

FORMATS = ("bibtex", "ris", "csl-json")
SUFFIXES = {"bibtex": ".bib", "ris": ".ris", "csl-json": ".json"}
FORMAT_NAMES = {"bibtex": "BibTeX", "ris": "RIS", "csl-json": "CSL-JSON"}


def format_of_path(path: str | None) -> str | None:
    """The format a file name's extension names, ignoring case (`refs.RIS` -> "ris"); None for
    any other name and for standard output."""
    if path is None:
        return None
    suffix = PurePath(path).suffix.lower()
    return next((format for format, known in SUFFIXES.items() if known == suffix), None)


def render(
    format: str,
    papers: Iterable[Paper],
    *,
    unicode: bool = False,
    tags: dict[str, list[str]] | None = None,
    notes: dict[str, str] | None = None,
    keys: dict[str, str] | None = None,
    print_arxiv_id: bool = True,
) -> str:
    """The papers as a file of the given format, each under its recorded key (`keys`, paper id ->
    key: see Store.citation_keys); `unicode` and `print_arxiv_id` (see core/bibtex.py) concern
    BibTeX only (RIS and CSL-JSON are always UTF-8, and carry the id in a field of its own)."""
    from reader.core import bibtex, csljson, ris  # here: every command line imports this module

    if format == "bibtex":
        return bibtex.export(papers, unicode=unicode, tags=tags, notes=notes, keys=keys, print_arxiv_id=print_arxiv_id)
    if format == "ris":
        return ris.export(papers, tags=tags, notes=notes, keys=keys)
    if format == "csl-json":
        return csljson.export(papers, tags=tags, notes=notes, keys=keys)
    raise ValueError(f"unknown export format {format!r}")
