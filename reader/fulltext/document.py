"""A paper's full text as reader keeps it: blocks of plain text in reading order, made from arXiv's
HTML (html.py) or from the PDF (pdf.py). Only text is kept: no markup, no attribute (math's TeX
excepted), nothing a page hid; every string has passed clean.printable."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

# What a block is, and so how it prints (render.py).
TITLE, AUTHORS, HEADING, PARAGRAPH, MATH, ITEM, FOOTNOTE, ROW, CAPTION, REFERENCE = (
    "title", "authors", "heading", "paragraph", "math", "item", "footnote", "row", "caption", "reference",
)
KINDS = frozenset((TITLE, AUTHORS, HEADING, PARAGRAPH, MATH, ITEM, FOOTNOTE, ROW, CAPTION, REFERENCE))
FORMAT = 1  # of the stored JSON (store.py): a text of another format is fetched again
CELL_SEPARATOR = " | "
# Where a text came from: arXiv's HTML, ar5iv's (older papers arXiv has none of; the version
# ar5iv has, maybe an earlier one) or the PDF's text.
SOURCES = {"html": "arXiv's HTML", "ar5iv": "ar5iv's HTML", "pdf": "the PDF"}


@dataclass(frozen=True, slots=True)
class Block:
    kind: str
    text: str  # a row: its cells joined by CELL_SEPARATOR
    arxiv_id: str | None = None  # a reference: the arXiv paper it names, when it names one

    def to_json(self) -> list:
        return [self.kind, self.text] if self.arxiv_id is None else [self.kind, self.text, self.arxiv_id]


@dataclass(frozen=True, slots=True)
class Document:
    id: str
    version: int
    source: str  # a key of SOURCES
    blocks: tuple[Block, ...] = field(default=())

    @property
    def references(self) -> list[Block]:
        return [block for block in self.blocks if block.kind == REFERENCE]

    def texts(self) -> Iterator[str]:
        """Every block's text, in order (what `text:` searches)."""
        for block in self.blocks:
            yield block.text
