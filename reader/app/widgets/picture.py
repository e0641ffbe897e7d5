"""Half-block cells (reader/fulltext/picture.py) as Textual strips: `▀` in the upper pixel's
colour on the lower pixel's colour, true colour (Textual lowers it where the terminal has fewer);
and the dim line a figure shows in place of its image."""

from __future__ import annotations

from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from reader.fulltext.picture import Cells

UPPER_HALF = "▀"


def cell_strips(cells: Cells, indent: int = 0) -> list[Strip]:
    """One strip per row of cells, after `indent` blank columns."""
    styles: dict[tuple, Style] = {}
    strips = []
    for row in cells.rows:
        segments = [Segment(" " * indent)] if indent else []
        for pair in row:
            style = styles.get(pair)
            if style is None:
                style = styles[pair] = Style(color=Color.from_rgb(*pair[0]), bgcolor=Color.from_rgb(*pair[1]))
            segments.append(Segment(UPPER_HALF, style))
        strips.append(Strip(segments, indent + len(row)))
    return strips


def note_strip(text: str, indent: int = 2) -> Strip:
    """A figure's one-line hint or state (`f: show the figure`, why an image is not shown), dim."""
    return Strip([Segment(" " * indent + text, Style(dim=True))])
