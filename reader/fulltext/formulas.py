"""Where a block's formulas stand in its text, and the text with them said in Unicode.

A block's text keeps each formula's TeX (`$…$` inline, `$$…$$` displayed: what `text:` searches
and what copying gives); its `maths` are (start, end, unicode) for those formulas that could be
said in Unicode (mathml.py), in order. Shown with Unicode, each such span is replaced; the others
stay TeX."""

from __future__ import annotations

from collections.abc import Mapping

from reader.fulltext.clean import printable

Spans = tuple[tuple[int, int, str], ...]


def spans(text: str, said: Mapping[str, str]) -> Spans:
    """The formulas of `text` that `said` (a formula as written, `$x_i$`, -> its Unicode) knows,
    in order. A `$` that opens no known formula (a price, `$5`) is passed over; a search for a
    closing `$` or `$$` stops at the next one, which is where the next search starts: linear."""
    found: list[tuple[int, int, str]] = []
    position = text.find("$")
    while position >= 0:
        end = -1
        for mark in ("$$", "$") if text.startswith("$$", position) else ("$",):
            close = text.find(mark, position + len(mark))
            if close > position + len(mark) and (unicode := said.get(text[position : close + len(mark)])):
                end = close + len(mark)
                found.append((position, end, unicode))
                break
        position = text.find("$", end if end >= 0 else position + 1)
    return tuple(found)


def shown(text: str, maths: Spans) -> str:
    """`text` with its formulas in Unicode (those that have one)."""
    if not maths:
        return text
    out, position = [], 0
    for start, end, unicode in maths:
        out.append(text[position:start])
        out.append(unicode)
        position = end
    out.append(text[position:])
    return "".join(out)


def checked(text: str, raw: object) -> Spans:
    """A stored block's `maths` (`[[start, end, unicode], ...]`) as far as they still fit its text
    (the file may have been edited): in order, within it, on a `$…$`; none if any does not."""
    if not isinstance(raw, list):
        return ()
    found: list[tuple[int, int, str]] = []
    previous = 0
    for item in raw:
        if not (isinstance(item, list) and len(item) == 3 and isinstance(item[2], str)):
            return ()
        start, end, unicode = item
        if not (isinstance(start, int) and isinstance(end, int)) or isinstance(start, bool) or isinstance(end, bool):
            return ()
        if not (previous <= start < end - 1 and end <= len(text) and text[start] == "$" and text[end - 1] == "$"):
            return ()
        unicode = printable(unicode)
        if not unicode:
            return ()
        found.append((start, end, unicode))
        previous = end
    return tuple(found)
