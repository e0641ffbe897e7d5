"""Pictures as Textual strips: half-block cells (reader/fulltext/picture.py), `▀` in the upper
pixel's colour on the lower pixel's colour, true colour (Textual lowers it where the terminal has
fewer); or, where the terminal speaks Kitty's graphics protocol, the cells of a placement
(reader/core/terminal_graphics.py) that the terminal fills with the image's own pixels; and the
dim line a figure shows in place of its image."""

from __future__ import annotations

import itertools
import os
import random
import sys
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING

from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from reader.core.terminal_graphics import HALFBLOCK, KITTY, KITTY_MAX_ID, drawing, kitty_colour, kitty_forget, kitty_rows
from reader.fulltext.picture import Cells

if TYPE_CHECKING:
    from textual.app import App

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


def terminal_drawing(app: App, images: str) -> str:
    """How this app's terminal draws pictures under the `images` setting (terminal_graphics).
    Kitty's image id travels in a cell's 24-bit colour: where Textual writes colours otherwise
    (no COLORTERM, as over ssh: 256 colours) or none (NO_COLOR), half blocks."""
    stdout = sys.__stdout__
    chosen = drawing(images, os.environ, stdout is not None and stdout.isatty())
    if chosen == KITTY and (app.console.color_system != "truecolor" or app.no_color):
        return HALFBLOCK
    return chosen


# Kitty's image ids are the terminal window's, shared with whatever else ran there: the app's
# start from a random one.
_image_ids = itertools.count(random.randint(1, KITTY_MAX_ID // 2))


def new_image_id() -> int:
    return next(_image_ids) % KITTY_MAX_ID + 1


def placement_strips(image_id: int, columns: int, rows: int, indent: int = 0) -> list[Strip]:
    """The cells of image `image_id`'s placement (`columns` x `rows`), one strip a row, after
    `indent` blank columns: text in the colour that names the image, its pixels the terminal's."""
    style = Style(color=Color.from_rgb(*kitty_colour(image_id)))
    blank = [Segment(" " * indent)] if indent else []
    return [Strip([*blank, Segment(row, style)], indent + columns) for row in kitty_rows(columns, rows)]


def send_to_terminal(app: App, sequence: str) -> None:
    """Write an escape sequence to the terminal, in order with the app's own output. Textual has
    no public way to do this; its own clipboard (OSC 52) and bell write to the driver so."""
    driver = app._driver
    if driver is not None and not app.is_headless:
        driver.write(sequence)


class TerminalImages:
    """The Kitty images a screen has the terminal hold (its memory, not only the app's): each
    sent once, freed once no longer shown (drawn again at another size) and when the screen goes."""

    def __init__(self, send: Callable[[str], None]):
        self._send = send  # writes an escape sequence to the terminal
        self.held: set[int] = set()

    def send(self, image_id: int, sequence: str) -> None:
        """Image `image_id` sent by `sequence`, unless the terminal holds it already."""
        if image_id not in self.held:
            self._send(sequence)
            self.held.add(image_id)

    def keep_only(self, image_ids: Collection[int]) -> set[int]:
        """Every image held but `image_ids` freed; the ones freed."""
        freed = self.held.difference(image_ids)
        for image_id in sorted(freed):
            self._send(kitty_forget(image_id))
        self.held -= freed
        return freed
