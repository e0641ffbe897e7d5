"""Fetching a paper's full text: arXiv's HTML first (`<html_url><id>v<version>`); when arXiv has
none, ar5iv's (`<ar5iv_url><id>`: older papers, in the version ar5iv has); then the PDF
(`<pdf_url><id>v<version>`). Each goes through the arXiv client (one connection, the polite
delay between requests, retries; a 404 is final). The HTML streams into the LaTeXML reader as it
arrives and the PDF into its file: neither is ever held whole.

A body counts only when it is whole: its Content-Length was met (or its last chunk came), or,
ended by the connection's close alone, the page's `</html>` (or its paper's end) was read and the
PDF ends with `%%EOF` and opens. Anything else is retried, then an error: never stored."""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import IO

from reader.arxiv.client import ArxivClient
from reader.errors import ArxivError, ArxivNotFoundError, FeedFormatError, ReaderError
from reader.fulltext.bounded import PageRefused
from reader.fulltext.document import PDF, PDF_FIGURES_FORMAT, Block, Document
from reader.fulltext.html import LatexmlText
from reader.fulltext.store import TextStore
from reader.fulltext.text_index import TextIndex
from reader.store.listing import remove_leftovers

log = logging.getLogger("reader.fulltext")
Progress = Callable[[str, int], None]  # (what: "html" or "pdf", bytes received so far)
CUT_SHORT = "(the connection closed before its end)"


def document_url(base: str, paper_id: str, version: int | None) -> str:
    """`https://arxiv.org/html/` + `2511.02810v2` (a base without a final `/` gets one); no
    version: the id alone."""
    return (base if base.endswith("/") else base + "/") + paper_id + (f"v{version}" if version is not None else "")


class _Html:
    """Receives the HTML into the LaTeXML reader."""

    def __init__(self, progress: Progress | None):
        self.reader = LatexmlText()
        self.received = 0
        self.progress = progress
        self.delimited = False
        self.url: str | None = None  # the page's final address: its figures' images are relative to it

    def ended(self, delimited: bool) -> None:
        self.delimited = delimited

    def located(self, url: str, content_type: str) -> None:
        self.url = url

    def declare_charset(self, label: str | None) -> None:
        self.reader.declare_charset(label)

    def feed(self, piece: bytes) -> None:
        self.received += len(piece)
        try:
            self.reader.feed_bytes(piece)
        except ArxivError:
            raise
        except Exception:  # html.parser's own failure on a strange page: logged, told in one line
            log.exception("reading an HTML page failed")
            raise PageRefused("arXiv's page could not be read") from None
        if self.progress is not None:
            self.progress("html", self.received)

    def discard(self) -> None:
        self.reader = LatexmlText()
        self.received = 0

    def finish(self) -> tuple[str, list[Block]] | None:
        """(source, blocks): "html" for LaTeXML's article, "page" for a page without one (its
        body's visible text, kept should arXiv have no PDF either); None when it holds no text."""
        try:
            blocks = self.reader.finish(self.url)
        except ArxivError:
            raise
        except Exception:
            log.exception("reading an HTML page failed")
            raise PageRefused("arXiv's page could not be read") from None
        if not (self.delimited or self.reader.reached_end):
            raise FeedFormatError(f"arXiv's page arrived cut short {CUT_SHORT}")
        if not blocks:
            return None
        return ("page" if self.reader.plain_page else "html"), blocks


class _PdfFile:
    """Receives the PDF into a temporary file beside its place, renamed there when complete."""

    def __init__(self, path: Path, progress: Progress | None):
        self.path = path
        self.tmp = path.with_name(f".{path.name}.{os.getpid()}.part")
        self.progress = progress
        self.received = 0
        self.delimited = False
        self._file: IO[bytes] | None = None

    def ended(self, delimited: bool) -> None:
        self.delimited = delimited

    def located(self, url: str, content_type: str) -> None:
        pass

    def declare_charset(self, label: str | None) -> None:
        pass  # a PDF's bytes are stored as they come

    def feed(self, piece: bytes) -> None:
        try:
            if self._file is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                remove_leftovers(self.path.parent)
                self._file = open(self.tmp, "wb")  # noqa: SIM115 (open across the download)
            self._file.write(piece)
        except OSError as error:
            self.discard()
            raise ReaderError(f"cannot write {self.path}: {error.strerror or error}") from None
        self.received += len(piece)
        if self.progress is not None:
            self.progress("pdf", self.received)

    def discard(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        self.tmp.unlink(missing_ok=True)
        self.received = 0

    def finish(self) -> Path:
        try:
            if self._file is None:  # an empty body
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._file = open(self.tmp, "wb")  # noqa: SIM115
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()
            self._file = None
            if not self.delimited and not self._opens():
                self.discard()
                raise FeedFormatError(f"arXiv's PDF arrived cut short {CUT_SHORT}")
            os.replace(self.tmp, self.path)
        except OSError as error:
            self.discard()
            raise ReaderError(f"cannot write {self.path}: {error.strerror or error}") from None
        return self.path

    def _opens(self) -> bool:
        from reader.fulltext.pdf import pdf_opens  # pypdf is imported only for a PDF

        with open(self.tmp, "rb") as handle:
            return pdf_opens(handle)


class TextFetcher:
    """Full texts and PDFs of cached papers, fetched through `client` into `texts`."""

    def __init__(self, client: ArxivClient, texts: TextStore):
        self.client = client
        self.texts = texts

    async def pdf(self, paper_id: str, version: int, progress: Progress | None = None, *, refresh: bool = False) -> Path:
        """The PDF of that version, from the data directory when saved before and whole (no
        request); `refresh`: fetched again all the same."""
        saved = None if refresh else await asyncio.to_thread(self.texts.stored_pdf, paper_id, version)
        if saved is not None:
            return saved
        url = document_url(self.client.options.pdf_url, paper_id, version)
        target = self.texts.pdf_path(paper_id, version)
        try:
            return await self.client.download(url, lambda: _PdfFile(target, progress), lambda receiver: receiver.finish())
        except ArxivNotFoundError:
            raise ArxivNotFoundError(f"arXiv has no PDF of {paper_id}v{version}") from None

    async def text(self, paper_id: str, version: int, progress: Progress | None = None, *, refresh: bool = False) -> Document:
        """Fetch, store and return the text of that version: the HTML, or the PDF's text (its PDF
        fetched again too with `refresh`). A text without a readable block is an error."""
        url = document_url(self.client.options.html_url, paper_id, version)
        try:
            page = await self.client.download(url, lambda: _Html(progress), lambda receiver: receiver.finish())
        except ArxivNotFoundError:
            page = None
            why = "no HTML"
        else:
            why = "an HTML page without the paper's text" if page is None else "an HTML page LaTeXML did not make"
        if page is not None and page[0] == "html":
            document = Document(paper_id, version, "html", tuple(page[1]))
        elif (blocks := await self._ar5iv(paper_id, version, why, progress)) is not None:
            document = Document(paper_id, version, "ar5iv", tuple(blocks))
        else:
            log.info("%sv%d: %s; reading the PDF", paper_id, version, why)
            try:
                path = await self.pdf(paper_id, version, progress, refresh=refresh)
            except ArxivNotFoundError:
                if page is not None:  # arXiv's format H: the authors' own HTML is the paper
                    document = Document(paper_id, version, "page", tuple(page[1]))
                    await asyncio.to_thread(self._keep, document)
                    return document
                if why == "no HTML":
                    raise ArxivNotFoundError(
                        f"arXiv has neither HTML nor a PDF of {paper_id}v{version}, and ar5iv has no HTML of it"
                    ) from None
                raise ArxivNotFoundError(
                    f"arXiv's HTML of {paper_id}v{version} holds no paper text, ar5iv has none, and arXiv has no PDF"
                ) from None
            from reader.fulltext.pdf import PdfUnreadable, pdf_blocks  # pypdf is imported only for a PDF

            try:
                blocks = await asyncio.to_thread(pdf_blocks, path, self.client.on_notice)
            except PdfUnreadable as error:
                raise PdfUnreadable(f"{paper_id}v{version}: {error}") from None
            document = Document(paper_id, version, "pdf", tuple(blocks))
        await asyncio.to_thread(self._keep, document)
        return document

    def _keep(self, document: Document) -> None:
        """Store the text and index it at once (its words, the papers it cites): "cited by" and
        `text:` then read no text."""
        path = self.texts.save(document)
        TextIndex(self.texts.data_dir).index_stored(document, path)

    async def _ar5iv(self, paper_id: str, version: int, why: str, progress: Progress | None) -> list[Block] | None:
        """ar5iv's blocks of the paper (LaTeXML's article); None when it has none (a 404, a page
        without the paper) or fails otherwise (logged): the PDF is read instead."""
        log.info("%sv%d: %s; trying ar5iv", paper_id, version, why)
        url = document_url(self.client.options.ar5iv_url, paper_id, None)
        try:
            page = await self.client.download(url, lambda: _Html(progress), lambda receiver: receiver.finish())
        except ArxivNotFoundError:
            return None
        except ArxivError as error:  # ar5iv is a side service: its failure leaves the PDF to try
            log.warning("%s: ar5iv failed (%s); reading the PDF", paper_id, error)
            return None
        return list(page[1]) if page is not None and page[0] == "html" else None


def reread_pdf_text(texts: TextStore, document: Document) -> Document:
    """A PDF's text stored before its figure captions were figures (document.PDF_FIGURES_FORMAT)
    read again from the PDF kept for it, stored and indexed: no request. Any other text, or one
    without its PDF kept or readable, as it is."""
    if document.source != PDF or document.format >= PDF_FIGURES_FORMAT:
        return document
    path = texts.stored_pdf(document.id, document.version)
    if path is None:
        return document
    from reader.fulltext.pdf import PdfUnreadable, pdf_blocks  # pypdf is imported only for a PDF

    try:
        blocks = pdf_blocks(path)
    except PdfUnreadable as error:
        log.warning("%sv%d: the kept PDF is not read again: %s", document.id, document.version, error)
        return document
    fresh = Document(document.id, document.version, PDF, tuple(blocks))
    try:
        TextIndex(texts.data_dir).index_stored(fresh, texts.save(fresh))
    except (ReaderError, OSError, sqlite3.Error) as error:  # shown all the same; read again next time
        log.warning("%sv%d: the text read again is not stored: %s", document.id, document.version, error)
    return fresh
