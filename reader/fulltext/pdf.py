"""A PDF's text, for papers arXiv has no HTML for: pypdf reads it page by page (its own limits
bound each stream it inflates), and pdflines.py makes the paper's blocks of its lines again
(paragraphs, headings, the bibliography's entries, accents and ligatures mended)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import IO

from reader.fulltext.document import Block
from reader.fulltext.pdfbounds import MAX_CPU_SECONDS, MAX_PAGE_CONTENT, PageBudget
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


def pdf_blocks(path: Path, notice: Callable[[str], None] | None = None) -> list[Block]:
    """The PDF's text in blocks; PdfUnreadable (one line) when pypdf cannot read it, or it takes
    too long (pdfbounds). Pages skipped are told to `notice`, in one line."""
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
    budget = PageBudget()
    skipped = 0
    for number in range(pages):
        if budget.out_of_time():
            raise PdfUnreadable(f"the PDF took more than {MAX_CPU_SECONDS:g} s to read; refused")
        try:
            page = reader.pages[number]
            if budget.page_too_large(page):
                log.warning("page %d of %s draws more than %d MB; skipped", number + 1, path, MAX_PAGE_CONTENT // 2**20)
                skipped += 1
                continue
            text = page.extract_text() or ""
        except Exception as error:
            log.warning("pypdf cannot read page %d of %s: %s", number + 1, path, error)
            skipped += 1
            continue
        builder.page(text, number + 1)
    blocks = builder.blocks()
    if not blocks:  # every page failed, or held no text (a scan): nothing to keep
        why = f" ({skipped:,} of {pages:,} pages unreadable or too large)" if skipped else ""
        raise PdfUnreadable(f"no text could be read from the PDF{why}")
    if skipped and notice is not None:
        notice(f"{skipped:,} of {pages:,} pages of the PDF could not be read (damaged, or too large); skipped")
    return blocks
