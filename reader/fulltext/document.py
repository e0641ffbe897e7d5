"""A paper's full text as reader keeps it: blocks of plain text in reading order, made from arXiv's
HTML (html.py) or from the PDF (pdf.py). Only text is kept: no markup, no attribute (math's TeX
excepted), nothing a page hid; every string has passed clean.printable."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

# What a block is, and so how it prints (render.py).
TITLE, AUTHORS, HEADING, PARAGRAPH, MATH, ITEM, FOOTNOTE, ROW, CAPTION, REFERENCE, FIGURE = (
    "title",
    "authors",
    "heading",
    "paragraph",
    "math",
    "item",
    "footnote",
    "row",
    "caption",
    "reference",
    "figure",  # a figure's (or a table's with images) label and caption, and its images' addresses (a PDF's: its page)
)
KINDS = frozenset((TITLE, AUTHORS, HEADING, PARAGRAPH, MATH, ITEM, FOOTNOTE, ROW, CAPTION, REFERENCE, FIGURE))
FORMAT = 4  # of the stored JSON (store.py): a text of another format is fetched again
# 2: references may carry their number and key (a fourth item). 3: any block may carry its
# formulas' Unicode (`maths` in that item), and figures are blocks of their own with their images'
# addresses (`images`). 4: a PDF's figure captions are figures that say their page (`page`). A
# text of an older format is still read as it was made (and searched; its math shows as TeX, its
# figures as captions), but for a PDF's text made before 4 with its PDF kept: read again from that
# file (fetch.reread_pdf_text, no request). `reader text --refresh` makes any text again.
PDF_FIGURES_FORMAT = 4
READABLE_FORMATS = (1, 2, 3, FORMAT)
CELL_SEPARATOR = " | "
# Where a text was read, and how that is said: arXiv's HTML made by LaTeXML; ar5iv's (older
# papers arXiv has none of: the version ar5iv has, maybe an earlier one); the PDF; or an HTML page
# its authors submitted (arXiv's format H: no LaTeXML, no PDF), read as its visible text.
HTML, AR5IV, PDF, PAGE = "html", "ar5iv", "pdf", "page"
SOURCES = {HTML: "arXiv's HTML", AR5IV: "ar5iv's HTML", PDF: "the PDF", PAGE: "its authors' HTML page"}


@dataclass(frozen=True, slots=True)
class Block:
    kind: str
    text: str  # a row: its cells joined by CELL_SEPARATOR
    arxiv_id: str | None = None  # a reference: the arXiv paper it names, when it names one
    number: int | None = None  # a reference: its number in the bibliography (LaTeXML's bib.bibN)
    key: str | None = None  # a reference: its anchor in the page, `bib.bib57`, what citations link to
    # (start, end, unicode) of the formulas in `text` said in Unicode, in order (formulas.py)
    maths: tuple[tuple[int, int, str], ...] = ()
    images: tuple[str, ...] = ()  # a figure: its images' absolute http(s) addresses, in the page's order
    page: int | None = None  # a figure of a PDF's text: the page its caption is on (its image is there only)

    def to_json(self) -> list:
        extra: dict[str, object] = {}
        if self.number is not None or self.key is not None:
            extra = {"number": self.number, "key": self.key}
        if self.maths:
            extra["maths"] = [list(span) for span in self.maths]
        if self.images:
            extra["images"] = list(self.images)
        if self.page is not None:
            extra["page"] = self.page
        if extra:
            return [self.kind, self.text, self.arxiv_id, extra]
        return [self.kind, self.text] if self.arxiv_id is None else [self.kind, self.text, self.arxiv_id]


@dataclass(frozen=True, slots=True)
class Document:
    id: str
    version: int
    source: str  # a key of SOURCES
    blocks: tuple[Block, ...] = field(default=())
    format: int = FORMAT  # the format it was stored in (a text just made: this one)

    @property
    def references(self) -> list[Block]:
        return [block for block in self.blocks if block.kind == REFERENCE]

    @property
    def images(self) -> list[tuple[Block, str]]:
        """(figure, address) of every image in the text, in order: image N is the Nth of these."""
        return [(block, url) for block in self.blocks if block.kind == FIGURE for url in block.images]

    def texts(self) -> Iterator[str]:
        """Every block's text, in order (what `text:` searches)."""
        for block in self.blocks:
            yield block.text
