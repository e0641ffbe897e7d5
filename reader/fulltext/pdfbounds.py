"""Bounds on reading a PDF's pages, whatever they share: pypdf takes about 4 s of CPU for a
megabyte of text operators (a page of pdflatex's text holds a few tens of kilobytes), and a stream
shared by every page is read again for each. A page whose content (its streams and the forms it
draws) inflates past MAX_PAGE_CONTENT is skipped, measured without being held; the pages read
stop at MAX_CPU_SECONDS of CPU, checked between pages."""

from __future__ import annotations

import time
import zlib
from typing import Any

MAX_PAGE_CONTENT = 1024 * 1024  # bytes of a page's inflated content streams
MAX_CPU_SECONDS = 25.0  # then the last page read costs at most a few more


class PageBudget:
    def __init__(self) -> None:
        self._sizes: dict[Any, int] = {}  # a stream's identity -> its inflated size, measured once
        self._started = time.process_time()

    def page_too_large(self, page: Any) -> bool:
        total = 0
        for stream in _content_streams(page):
            total += self._size(stream)
            if total > MAX_PAGE_CONTENT:
                return True
        return False

    def out_of_time(self) -> bool:
        return time.process_time() - self._started > MAX_CPU_SECONDS

    def _size(self, reference: Any) -> int:
        key = (reference.idnum, reference.generation) if hasattr(reference, "idnum") else id(reference)
        if key not in self._sizes:
            self._sizes[key] = _inflated_size(reference.get_object())
        return self._sizes[key]


def _content_streams(page: Any) -> list[Any]:
    """References to (or the objects of) the page's content streams and the forms it may draw."""
    streams = []
    contents = page.get("/Contents")
    if contents is not None:
        resolved = contents.get_object()
        streams.extend(resolved if isinstance(resolved, list) else [contents])
    resources = page.get("/Resources")
    xobjects = resources.get_object().get("/XObject") if resources is not None else None
    if xobjects is not None:
        for reference in xobjects.get_object().values():
            if reference.get_object().get("/Subtype") == "/Form":
                streams.append(reference)
    return streams


def _inflated_size(stream: Any) -> int:
    """Its size once inflated, up to a little past the bound, without holding it (Flate, the usual
    filter, is inflated here a piece at a time; any other is decoded by pypdf)."""
    filters = stream.get("/Filter")
    filters = [filters] if isinstance(filters, str) else list(filters or [])
    raw = getattr(stream, "_data", b"")
    if not filters:
        return len(raw)
    if filters == ["/FlateDecode"] and not stream.get("/DecodeParms"):
        inflater = zlib.decompressobj()
        size, rest = 0, raw
        try:
            while rest and size <= MAX_PAGE_CONTENT:
                size += len(inflater.decompress(rest, 64 * 1024))
                rest = inflater.unconsumed_tail
        except zlib.error:
            return size  # pypdf's own recovery reads it, or fails the page
        return size
    return len(stream.get_data())
