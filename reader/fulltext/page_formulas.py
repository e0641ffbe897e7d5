"""The formulas and equations of a page as html.py reads them: the open formula's MathML (the
parser routes a `<math>`'s elements to its MathBuilder), how its TeX stands in the text (`$x$`,
`$$x$$`), and what each is said as in Unicode, kept in the page's `said` for the blocks its TeX
stands in. An aligned row of an equation is one display line, its cells' TeX side by side, said in
Unicode whole or not at all; an equation's number joins its math's line."""

from __future__ import annotations

from dataclasses import replace

from reader.fulltext.clean import printable
from reader.fulltext.document import MATH, PARAGRAPH, Block
from reader.fulltext.mathml import MathBuilder
from reader.fulltext.page_blocks import PageBlocks


class PageFormulas:
    def __init__(self, blocks: PageBlocks) -> None:
        self.open: MathBuilder | None = None  # the open formula's MathML, being read
        self.row: list[str] | None = None  # the open equation row's formulas (its cells)
        self.equations = 0  # open equations (and groups of them)
        self._blocks = blocks
        self._said = blocks.said  # a formula as it stands in the text -> its Unicode
        self._equation_start = 0  # where the open equation row's blocks start
        self._written = ""  # how the open formula's TeX stands in the text; "": a row's cell
        self._row_said: list[str | None] = []  # the row's cells' Unicode (None: said as TeX)

    def start(self, formula: str, *, display: bool) -> str | None:
        """A formula opens: how its TeX stands in the text, or None for a cell of the open row."""
        self.open = MathBuilder()
        if self.row is not None:
            self.row.append(formula)
            self._written = ""
            return None
        self._written = f"$${formula}$$" if display else f"${formula}$"
        return self._written

    def end(self) -> None:
        """`</math>`: the formula's Unicode, for the blocks its TeX stands in (a display block was
        added at its start)."""
        assert self.open is not None
        blocks = self._blocks.current
        said, self.open = self.open.unicode(), None
        if not self._written:
            self._row_said.append(said)
        elif said is not None:
            self._said[self._written] = said
            if blocks and blocks[-1].text == self._written:
                blocks[-1] = replace(blocks[-1], maths=((0, len(self._written), said),))

    def start_equation(self) -> None:
        self.equations += 1
        self._equation_start = len(self._blocks.main)

    def start_row(self) -> bool:
        """A row of an open equation starts; True when it is read as an aligned row (its text
        captured: the number beside its cells)."""
        self._equation_start = len(self._blocks.main)
        if self.row is not None:
            return False
        self._blocks.capture()
        self.row, self._row_said = [], []
        return True

    def end_row(self) -> None:
        """An aligned row ends: its cells' TeX as one display line, its number after."""
        number = self._blocks.release()
        cells, self.row = self.row or [], None
        said, self._row_said = self._row_said, []
        if cells and len(said) == len(cells) and all(said):  # a row is said in Unicode whole, or as TeX
            self._said[f"$${' '.join(cells)}$$"] = " ".join(text for text in said if text)
        line = f"$${' '.join(cells)}$$ {number}".rstrip() if cells else number
        if not line:
            return
        if self._blocks.saved:  # within a captured piece (a footnote, a cell): part of its text
            self._blocks.parts.append(f" {line} ")
            return
        self._blocks.flush()
        self._blocks.add(Block(MATH if cells else PARAGRAPH, line))
        self._equation_start = len(self._blocks.main)
        self._blocks.place_notes()

    def end_part(self) -> None:
        """A block of an equation ends: its number (the text beside its display math) joins the
        math's line."""
        blocks = self._blocks
        if blocks.saved:
            blocks.parts.append(" ")
            return
        tag = printable("".join(blocks.parts))
        blocks.parts = []
        target = blocks.current
        if tag and len(target) > self._equation_start and target[-1].kind == MATH:
            target[-1] = replace(target[-1], text=f"{target[-1].text} {tag}")
        elif tag:
            blocks.add(Block(PARAGRAPH, tag))
        self._equation_start = len(blocks.main)
        blocks.place_notes()

    def end_equation(self) -> None:
        self.end_part()
        self.equations -= 1
