"""A PDF's text, for papers arXiv has no HTML for: pypdf reads it page by page (its own limits
bound each stream it inflates), and lines are joined into paragraphs again: a line that ends a
sentence well short of the page's usual width ends its paragraph, a hyphen at a line's end
joins the word, numbered headings and bibliography entries (`[12] ...`) start blocks of their own."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import IO

from reader.errors import ReaderError
from reader.fulltext.clean import printable
from reader.fulltext.document import HEADING, PARAGRAPH, REFERENCE, Block
from reader.fulltext.html import MAX_BLOCKS, MAX_TEXT
from reader.fulltext.pdfbounds import MAX_CPU_SECONDS, MAX_PAGE_CONTENT, PageBudget
from reader.fulltext.refs import arxiv_id_in_text

log = logging.getLogger("reader.fulltext")
logging.getLogger("pypdf").addHandler(logging.NullHandler())  # its warnings go to the log, not stderr
MAX_PAGES = 2000
_HEADING = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[A-Z]\.(?:\d+)?|Appendix [A-Z])\s+[A-Z][^.]{0,100}$")
_NAMED_HEADING = re.compile(r"^(?:Abstract|References|Bibliography|Acknowledge?ments?|Appendix)$", re.IGNORECASE)
_REFERENCE_START = re.compile(r"^\[\d{1,4}\]\s")
_SENTENCE_END = re.compile(r"[.:!?)\]]$")
EOF_WINDOW = 1024  # `%%EOF` ends a PDF; the standard lets a little follow it (Acrobat looks this far)


class PdfUnreadable(ReaderError):
    """pypdf could not read the file."""


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
        builder.page(text)
    blocks = builder.blocks()
    if not blocks:  # every page failed, or held no text (a scan): nothing to keep
        why = f" ({skipped:,} of {pages:,} pages unreadable or too large)" if skipped else ""
        raise PdfUnreadable(f"no text could be read from the PDF{why}")
    if skipped and notice is not None:
        notice(f"{skipped:,} of {pages:,} pages of the PDF could not be read (damaged, or too large); skipped")
    return blocks


class _Paragraphs:
    def __init__(self) -> None:
        self._blocks: list[Block] = []
        self._lines: list[str] = []
        self._kind = PARAGRAPH
        self._text = 0
        self._in_references = False

    def page(self, text: str) -> None:
        lines = [printable(line) for line in text.split("\n")]
        lines = [line for line in lines if line]
        if lines and lines[-1].isdigit():
            lines.pop()  # the page number
        usual = sorted(len(line) for line in lines)[len(lines) // 2] if lines else 0
        for line in lines:
            self._text += len(line)
            if self._text > MAX_TEXT:
                raise PdfUnreadable(f"the PDF's text is longer than {MAX_TEXT // 2**20} MB; refused")
            if _NAMED_HEADING.match(line) or (_HEADING.match(line) and len(line) < 0.8 * max(usual, 1)):
                self._end()
                self._add(Block(HEADING, line))
                self._in_references = line.lower() in ("references", "bibliography")
                continue
            if self._in_references and _REFERENCE_START.match(line):
                self._end()
                self._kind = REFERENCE
            self._lines.append(line)
            if self._kind == PARAGRAPH and _SENTENCE_END.search(line) and len(line) < 0.85 * usual:
                self._end()
        # A paragraph may go on over the page break: it ends only as above.

    def _end(self) -> None:
        if self._lines:
            text = self._lines[0]
            for line in self._lines[1:]:
                if text.endswith("-") and line[:1].islower():
                    text = text[:-1] + line  # a word hyphenated at the line's end
                else:
                    text += " " + line
            self._add(Block(self._kind, text, arxiv_id_in_text(text) if self._kind == REFERENCE else None))
        self._lines = []
        self._kind = PARAGRAPH

    def _add(self, block: Block) -> None:
        if len(self._blocks) >= MAX_BLOCKS:
            raise PdfUnreadable(f"the PDF has more than {MAX_BLOCKS:,} paragraphs; refused")
        self._blocks.append(block)

    def blocks(self) -> list[Block]:
        self._end()
        return self._blocks
