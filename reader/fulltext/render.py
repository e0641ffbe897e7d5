"""A stored text as lines to print or show: piped, one line per block (grep sees whole sentences);
on a terminal or in the app, wrapped to a width. Blocks of a list, a table or the bibliography
follow one another; other blocks are set apart by a blank line. Every string is plain text
already (clean.printable): nothing here can act on a terminal. Math is shown as its TeX, or with
`unicode` as the Unicode kept beside it (formulas.py) where it has one."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from reader.fulltext.document import AUTHORS, FOOTNOTE, ITEM, MATH, REFERENCE, ROW, Block, Document
from reader.fulltext.formulas import shown

INDENT = {ITEM: "  ", FOOTNOTE: "  ", ROW: "  ", MATH: "    "}
_RUNS = (ITEM, ROW, REFERENCE, FOOTNOTE, AUTHORS)  # kinds whose blocks follow each other without a gap
_AUTHORS_RUN = (AUTHORS, FOOTNOTE)  # an author's thanks follow the author's line, as the next author does


def wrapped(text: str, width: int, indent: str = "") -> Iterator[str]:
    """`text` in lines of at most `width` characters (words longer than that are cut), each after
    `indent`; made lazily (textwrap would split a long paragraph into a list of every word)."""
    room = max(width - len(indent), 10)
    position, length = 0, len(text)
    while length - position > room:
        cut = text.rfind(" ", position, position + room + 1)
        if cut <= position:
            yield indent + text[position : position + room]
            position += room
        else:
            yield indent + text[position:cut]
            position = cut + 1
    if position < length or not length:
        yield indent + text[position:]


def block_lines(
    document: Document, width: int | None = None, marker: Callable[[Block], str] | None = None, *, unicode: bool = False
) -> Iterator[tuple[Block | None, str]]:
    """(block, line) for each line of the text (None for the blank lines between blocks);
    `width` None: one line per block. `marker` adds a note after a block's text (the app marks
    references to papers in the cache); `unicode`: formulas in Unicode, else TeX."""
    previous: str | None = None
    for block in document.blocks:
        together = block.kind == previous and block.kind in _RUNS
        if (
            previous is not None
            and not together
            and not (AUTHORS in (block.kind, previous) and block.kind in _AUTHORS_RUN and previous in _AUTHORS_RUN)
        ):
            yield None, ""
        previous = block.kind
        text = (shown(block.text, block.maths) if unicode else block.text) + (marker(block) if marker is not None else "")
        indent = INDENT.get(block.kind, "")
        if width is None:
            yield block, indent + text
        else:
            for line in wrapped(text, width, indent):
                yield block, line


def lines(document: Document, width: int | None = None, *, unicode: bool = False) -> Iterator[str]:
    for _, line in block_lines(document, width, unicode=unicode):
        yield line
