"""The blocks a page's reader (html.py) makes of the text it reads: the block being read (its text
in parts, its kind from the elements open around it), pieces read apart (a cell, a footnote, an
author's line: captures, which nest), footnotes placed after the block they belong to, and the
blocks themselves in two lists, the paper's and its bibliography's (printed last, wherever the page
has it). A formula's Unicode is put beside its TeX in each block that holds it."""

from __future__ import annotations

from dataclasses import replace

from reader.fulltext.bounded import PageRefused
from reader.fulltext.clean import printable
from reader.fulltext.document import FOOTNOTE, PARAGRAPH, Block
from reader.fulltext.formulas import spans

# Bounds on what a page may hold, beside the work bounded.py bounds.
MAX_TEXT = 16 * 1024 * 1024  # characters of text read (html.py counts them); a long paper has a few hundred thousand
MAX_BLOCKS = 100_000


class PageBlocks:
    def __init__(self) -> None:
        self.parts: list[str] = []  # the text of the block being read
        self.saved: list[list[str]] = []  # outer blocks' parts while a capture reads its own
        self.kinds: list[str] = [PARAGRAPH]  # the kind of block being read, by the elements open
        self.item_tag = ""  # a list item's bullet or number, put before its first block
        self.notes: list[str] = []  # footnotes read, placed after the block they belong to
        self.said: dict[str, str] = {}  # a formula as it stands in the text -> its Unicode
        self.in_bibliography = 0  # open bibliographies
        self.main: list[Block] = []
        self.bibliography: list[Block] = []
        self._count = 0

    @property
    def current(self) -> list[Block]:
        """The list blocks go to now: the bibliography's within it, else the paper's."""
        return self.bibliography if self.in_bibliography else self.main

    def capture(self) -> None:
        """Read the element's text apart (a cell, a footnote, an author, a mark)."""
        self.saved.append(self.parts)
        self.parts = []

    def release_keep(self) -> str:
        """The captured text so far, the capture going on (an author's line ends at a `<br>`)."""
        text = printable("".join(self.parts))
        self.parts = []
        return text

    def release(self) -> str:
        text = printable("".join(self.parts))
        self.parts = self.saved.pop() if self.saved else []
        return text

    def boundary(self) -> None:
        """Between blocks: the text so far is one (within a captured piece, a space)."""
        if self.saved:
            self.parts.append(" ")
        else:
            self.flush()

    def flush(self) -> None:
        text = printable("".join(self.parts)) if self.parts else ""
        self.parts = []
        if text:
            if self.item_tag:
                text, self.item_tag = f"{self.item_tag} {text}", ""
            self.add(Block(self.kinds[-1], text))
        self.place_notes()

    def add(self, block: Block) -> None:
        if self.said and "$" in block.text:
            block = replace(block, maths=spans(block.text, self.said))
        self._count += 1
        if self._count > MAX_BLOCKS:
            raise PageRefused(f"the paper has more than {MAX_BLOCKS:,} paragraphs; refused")
        self.current.append(block)

    def place_notes(self) -> None:
        if self.notes and not self.saved:
            notes, self.notes = self.notes, []
            for note in notes:
                self.add(Block(FOOTNOTE, note))

    def forget(self) -> None:
        """Forget every block and the text being read (the body read so far was no paper)."""
        self.main.clear()
        self.bibliography.clear()
        self.parts, self.notes, self._count = [], [], 0
