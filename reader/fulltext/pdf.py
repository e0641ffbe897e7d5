"""A PDF's text, for papers arXiv has no HTML for: pypdf reads it page by page (its own limits
bound each stream it inflates), and pdflines.py makes the paper's blocks of its lines again
(paragraphs, headings, the bibliography's entries, accents and ligatures mended)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import IO

from reader.fulltext.document import Block
from reader.fulltext.pdflines import Paragraphs as _Paragraphs
from reader.fulltext.pdflines import PdfUnreadable

__all__ = ["PdfUnreadable", "pdf_blocks", "pdf_opens"]

log = logging.getLogger("reader.fulltext")
logging.getLogger("pypdf").addHandler(logging.NullHandler())  # its warnings go to the log, not stderr
MAX_PAGES = 2000
EOF_WINDOW = 1024  # `%%EOF` ends a PDF; the standard lets a little follow it (Acrobat looks this far)


def pdf_opens(handle: IO[bytes]) -> bool:
    """A whole PDF: it ends with `%%EOF` and pypdf opens it and finds pages. (pypdf alone would
    open a file cut short by rebuilding its table from what is left.)"""
    import pypdf

    try:
        handle.seek(0, 2)
        handle.seek(max(0, handle.tell() - EOF_WINDOW))
        if b"%%EOF" not in handle.read():
            return False
        handle.seek(0)
        return len(pypdf.PdfReader(handle).pages) > 0
    except Exception as error:  # pypdf raises many kinds on a damaged file
        log.warning("pypdf cannot open a PDF: %s", error)
        return False


def pdf_blocks(path: Path) -> list[Block]:
    """The PDF's text in blocks; PdfUnreadable (one line) when pypdf cannot read it."""
    import pypdf

    try:
        reader = pypdf.PdfReader(path)
        pages = len(reader.pages)
    except Exception as error:  # pypdf raises many kinds on a damaged file
        log.warning("pypdf cannot read %s: %s", path, error)
        raise PdfUnreadable("the PDF cannot be read (damaged, or not a PDF)") from None
    if pages > MAX_PAGES:
        raise PdfUnreadable(f"the PDF has {pages:,} pages; more than {MAX_PAGES:,} are not read")
    builder = _Paragraphs()
    for number in range(pages):
        try:
            text = reader.pages[number].extract_text() or ""
        except Exception as error:
            log.warning("pypdf cannot read page %d of %s: %s", number + 1, path, error)
            continue
        builder.page(text)
    blocks = builder.blocks()
    if not blocks:  # every page failed, or held no text (a scan): nothing to keep
        raise PdfUnreadable("no text could be read from the PDF")
    return blocks

