"""One door to every export format, and the rule for where an export may be written; used by the
command line and the app alike."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

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


def path_problem(text: str) -> str | None:
    """Why `text` cannot be the file an export writes, or None. A folder is refused (`.`, `/`, a
    trailing slash): no file name is invented; so is a folder that takes no new file."""
    if not text.strip():
        return "Give a file path."
    path = Path(text.strip()).expanduser()
    if text.strip().endswith(os.sep) or path.is_dir():
        return f"{path} is a folder: give a file name, e.g. {path / 'starred.bib'}"
    if not path.parent.is_dir():
        return f"The folder {path.parent} does not exist."
    try:  # a file with no name (Linux), gone when closed: nothing is left behind
        with tempfile.TemporaryFile(dir=path.parent):
            pass
    except OSError as error:  # said before the records are read, not seconds later
        return f"Cannot write in the folder {path.parent}: {error.strerror or error}"
    return None
