"""A stored text as the full-text view's lines (pure: made in a worker): styled by kind, references
to cached papers marked, each figure followed by its images' strips (or why not) or a hint; and
where each block and figure stands in them, to keep the top line in place and find figures."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from reader.app.widgets.picture import note_strip
from reader.app.widgets.record_view import RecordLines
from reader.fulltext.document import AUTHORS, CAPTION, FIGURE, HEADING, REFERENCE, TITLE, Block, Document
from reader.fulltext.render import block_lines

STYLES = {
    TITLE: Style(bold=True),
    HEADING: Style(bold=True),
    AUTHORS: Style(italic=True),
    CAPTION: Style(italic=True),
    FIGURE: Style(bold=True, italic=True),
}
MARKED = Style(bold=True)


@dataclass(frozen=True)
class TextLayout:
    """The view's lines, and where each block and figure is in them (to keep the lines at the top
    of the screen in place when images are drawn above, and to find the figure under the top)."""

    lines: RecordLines
    line_blocks: tuple[int, ...] = ()  # each line's block (its index), -1 for none
    block_starts: Mapping[int, int] | None = None  # a block's first line
    # (a figure's last line, its images' numbers, the PDF's page it is on: a PDF's text only)
    figures: tuple[tuple[int, tuple[int, ...], int | None], ...] = ()


def text_lines(
    document: Document,
    width: int,
    cached: set[str],
    starred: set[str],
    read: set[str],
    pictures: Mapping[int, Sequence[Strip] | str] | None = None,
    keys: tuple[str, str, str] = ("f", "F", "enter"),
    *,
    unicode: bool = True,
) -> TextLayout:
    """The text as the view's lines (pure: made in a worker). References to cached papers end
    with a mark saying so; formulas in Unicode (where the page's MathML said it), else TeX. A figure's images (numbered from 1 over the text) are drawn from
    `pictures` (its strips, or a line saying why not or that it is coming), else a hint names the `keys` (one figure, every figure, its page);
    a figure of a PDF's text (no image to fetch) says the page it is on."""
    pictures = pictures or {}

    def marker(block: Block) -> str:
        if block.kind != REFERENCE or block.arxiv_id is None or block.arxiv_id not in cached:
            return ""
        marks = ["in your cache"] + (["★ starred"] if block.arxiv_id in starred else []) + (["read"] if block.arxiv_id in read else [])
        return f"  ◆ arXiv:{block.arxiv_id} " + " · ".join(marks)

    source = {
        "html": "arXiv's HTML",
        "ar5iv": "ar5iv's HTML (arXiv has none of it; ar5iv's may be of an earlier version)",
        "pdf": "its PDF (arXiv has no HTML of it)",
    }.get(document.source, "the HTML page its authors submitted (no LaTeXML, no PDF)")
    head = f"Full text of arXiv:{document.id}v{document.version}, from {source}"
    strips, texts = [Strip([]), Strip([Segment(head, Style(dim=True))]), Strip([])], ["", head, ""]
    line_blocks, figures = [-1, -1, -1], []
    starts: dict[int, int] = {}
    numbers: dict[int, list[int]] = {id(block): [] for block in document.blocks if block.kind == FIGURE}
    for number, (figure, _) in enumerate(document.images, start=1):
        numbers[id(figure)].append(number)
    indexes = {id(block): index for index, block in enumerate(document.blocks)}
    lines = list(block_lines(document, width, marker, unicode=unicode))
    for at, (block, line) in enumerate(lines):
        style = None if block is None else STYLES.get(block.kind)
        if block is not None and block.kind == REFERENCE and block.arxiv_id in cached:
            style = MARKED
        index = -1 if block is None else indexes[id(block)]
        if index >= 0:
            starts.setdefault(index, len(strips))
        strips.append(Strip([Segment(line, style)]))
        texts.append(line)
        line_blocks.append(index)
        if block is not None and block.kind == FIGURE and (at + 1 == len(lines) or lines[at + 1][0] is not block):
            extra = _figure_strips(numbers[id(block)], pictures, keys, block.page)
            strips.extend(strip for strip, _ in extra)
            texts.extend(text for _, text in extra)
            line_blocks.extend([index] * len(extra))
            figures.append((len(strips) - 1, tuple(numbers[id(block)]), block.page))
    strips.append(Strip([]))
    texts.append("")
    line_blocks.append(-1)
    return TextLayout(RecordLines(tuple(strips), tuple(texts)), tuple(line_blocks), starts, tuple(figures))


def _figure_strips(
    numbers: list[int], pictures: Mapping[int, Sequence[Strip] | str], keys: tuple[str, str, str], page: int | None
) -> list[tuple[Strip, str]]:
    """A figure's images as drawn (or why not), or the hint when none was asked for: (strip, its
    text). A picture's rows have no text (nothing to copy, and the view passes them on as drawn)."""
    if page is not None:  # a PDF's text: the figure is on its page, drawn by the page view
        return [_note(f"see page {page} · {keys[2]}: open page {page} of the PDF")]
    if not numbers:
        return [_note("(no image in the page: drawn there as a picture or text)")]
    if not any(number in pictures for number in numbers):
        several = f" ({len(numbers)} images)" if len(numbers) > 1 else ""
        return [_note(f"{keys[0]}: show the figure{several} · {keys[1]}: every figure")]
    strips: list[tuple[Strip, str]] = []
    for number in numbers:
        shown = pictures.get(number)
        if isinstance(shown, str):
            strips.append(_note(f"image {number}: {shown}"))
        elif shown is not None:
            strips.extend((strip, "") for strip in shown)
    return strips


def _note(text: str) -> tuple[Strip, str]:
    strip = note_strip(text)
    return strip, strip.text
