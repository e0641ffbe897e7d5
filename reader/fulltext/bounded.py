"""html.parser fed bytes as they arrive, with the work it may do bounded: a hostile page of at most
64 MB (the client's cap) is read or refused within seconds and a few tens of megabytes.

Every construct html.parser steps over (a tag, an end tag, a comment, a text, a character
reference, even one inside an element whose contents are skipped) costs one unit, each attribute
one more; past MAX_WORK the page is refused. html.parser matches a start tag with a regular
expression whose memory grows with the tag's attributes (about 500 bytes each), so a start tag
is never let grow past MAX_TAG: the text is handed over in pieces of FEED_PIECE, and a start tag
still open after one is refused once it is longer. Comments and what is skipped whole (a hidden
formula, a formula's TeX and Content MathML annotations) may run to MAX_PENDING. CPU time is checked between pieces as a last bound.

Bytes are decoded as a browser would: a byte-order mark, else the charset of the answer's
Content-Type, else one a `<meta>` names within the page's first PRESCAN bytes, else UTF-8; names
are the WHATWG's (ISO-8859-1 is read as windows-1252), an unknown one is logged and UTF-8 read."""

from __future__ import annotations

import logging
import re
import time
from html.parser import HTMLParser

import webencodings

from reader.errors import ArxivError

log = logging.getLogger("reader.fulltext")

# About 3 microseconds a unit on a laptop, 5 on a loaded server: a long real paper takes a few
# hundred thousand (a formula's presentation MathML is read, its annotations skipped unparsed).
MAX_WORK = 1_500_000
MAX_TAG = 128 * 1024  # characters of one start tag; LaTeXML's longest, a formula's TeX, are a few KB
MAX_PENDING = 16 * 1024 * 1024  # characters of one comment or formula not yet complete
MAX_CPU_SECONDS = 10.0
FEED_PIECE = 64 * 1024  # characters handed to html.parser at once while a start tag may be open
FEED_BYTES = 1024 * 1024  # bytes gathered before decoding
_START_TAG = re.compile(r"<[a-zA-Z]")
PRESCAN = 1024  # bytes a browser looks through for a <meta> naming the charset
_COMMENT = re.compile(rb"<!--.*?(?:-->|$)", re.DOTALL)
_WINDOWS_1252 = webencodings.lookup("windows-1252")
# `<meta charset="...">` or `<meta http-equiv="Content-Type" content="text/html; charset=...">`
_META_CHARSET = re.compile(rb"""<meta\b[^>]*?\bcharset\s*=\s*["']?\s*([^\s"';>/]{1,40})""", re.IGNORECASE)


class PageRefused(ArxivError):
    """A page the reader will not read (too much work, a tag too long, nested too deep): final,
    never retried."""


class BoundedHtmlParser(HTMLParser):
    """feed_bytes(piece) as the page arrives, close_input() after the last; subclasses call
    spend(units) for work html.parser does not step over (attributes)."""

    def __init__(self) -> None:
        # Character references are converted by the subclass, as they come: html.parser's own
        # conversion holds back every text up to the next tag, however long.
        super().__init__(convert_charrefs=False)
        self._decoder: webencodings.IncrementalDecoder | None = None  # chosen at the first decoding
        self._header_charset: str | None = None
        self._pending = bytearray()
        self._work = 0
        self._cpu_started: float | None = None

    def declare_charset(self, label: str | None) -> None:
        """The charset the answer's Content-Type names (None: none), before the first piece."""
        self._header_charset = label

    def feed_bytes(self, piece: bytes) -> None:
        self._pending += piece
        if len(self._pending) >= FEED_BYTES:
            self._feed_pending()

    def close_input(self) -> None:
        """Feed what is left; a tag or comment never finished is dropped (a browser shows none)."""
        self._feed_pending(final=True)
        if self.rawdata.startswith("<"):
            self.rawdata = ""
        self.close()

    def spend(self, units: int) -> None:
        self._work += units
        if self._work > MAX_WORK:
            raise PageRefused(f"the page has more than {MAX_WORK:,} tags, texts and references; refused")

    def updatepos(self, i: int, j: int) -> int:
        # html.parser calls this once per construct it steps over: the one place that sees them
        # all. (Its line counting is not needed, and was itself a scan of every text.)
        self.spend(1)
        return j

    def _feed_pending(self, final: bool = False) -> None:
        if self._cpu_started is None:
            self._cpu_started = time.process_time()
        if self._decoder is None:  # nothing decoded yet: the page's start is here
            self._decoder = webencodings.IncrementalDecoder(self._encoding(bytes(self._pending[:PRESCAN])), "replace")
        text = self._decoder.decode(bytes(self._pending), final=final)
        self._pending.clear()
        start = 0
        while start < len(text):
            # A piece as long as what is held (a formula or comment awaiting its end), so that
            # the copy html.parser makes of it at each feed costs no more than the piece.
            size = FEED_PIECE if self._start_tag_open() else max(FEED_PIECE, len(self.rawdata))
            self.feed(text[start : start + size])
            start += size
            self._check_held()
        if time.process_time() - self._cpu_started > MAX_CPU_SECONDS:
            raise PageRefused(f"the page took more than {MAX_CPU_SECONDS:g} s to read; refused")

    def _encoding(self, head: bytes) -> webencodings.Encoding:
        """The header's charset, else the one a <meta> in `head` names, else UTF-8."""
        if self._header_charset is not None:
            label, where = self._header_charset, "Content-Type"
        elif found := _META_CHARSET.search(_COMMENT.sub(b"", head)):
            label, where = found.group(1).decode("ascii", "replace"), "<meta>"
        else:
            return webencodings.UTF8
        encoding = webencodings.lookup(label)
        if encoding is None or encoding.name == "replacement":
            log.warning("the page's %s names an unknown charset %r; read as UTF-8", where, label[:40])
            return webencodings.UTF8
        if where == "<meta>" and encoding.name in ("utf-16le", "utf-16be"):
            return webencodings.UTF8  # the <meta> was read as ASCII: the page is not UTF-16 (as browsers have it)
        if where == "<meta>" and encoding.name == "x-user-defined":
            return _WINDOWS_1252 or webencodings.UTF8
        return encoding

    def _start_tag_open(self) -> bool:
        return self.cdata_elem is None and _START_TAG.match(self.rawdata) is not None

    def _check_held(self) -> None:
        held = len(self.rawdata)
        if held > MAX_TAG and self._start_tag_open():
            raise PageRefused(f"the page has a tag longer than {MAX_TAG // 1024} KB; refused")
        if held > MAX_PENDING:
            raise PageRefused(f"the page has a comment or formula longer than {MAX_PENDING // 2**20} MB; refused")
