"""One door to every export format, used by the command line and the app alike."""

from __future__ import annotations

from collections.abc import Iterable

from reader.models import Paper

FORMATS = ("bibtex", "ris", "csl-json")
SUFFIXES = {"bibtex": ".bib", "ris": ".ris", "csl-json": ".json"}


def render(
    format: str,
    papers: Iterable[Paper],
    *,
    unicode: bool = False,
    tags: dict[str, list[str]] | None = None,
    notes: dict[str, str] | None = None,
) -> str:
    """The papers as a file of the given format; `unicode` concerns BibTeX only (RIS and CSL-JSON
    are always UTF-8)."""
    from reader.core import bibtex, csljson, ris  # here: every command line imports this module

    if format == "bibtex":
        return bibtex.export(papers, unicode=unicode, tags=tags, notes=notes)
    if format == "ris":
        return ris.export(papers, tags=tags, notes=notes)
    if format == "csl-json":
        return csljson.export(papers, tags=tags, notes=notes)
    raise ValueError(f"unknown export format {format!r}")
