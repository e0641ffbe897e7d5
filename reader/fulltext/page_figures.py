"""A page's figures as html.py reads them: the open float (a figure, a table with images in its
cells, another float such as a biography's photo) and the images in it. Floats nest: a
sub-figure's panels and caption are its outer one's. A figure becomes a block where its caption
stands (`Figure 3: ...`), holding its images (none: drawn in the page as SVG or text); a table or
float without an image keeps its caption."""

from __future__ import annotations

from dataclasses import replace

from reader.fulltext.document import CAPTION, FIGURE, Block
from reader.fulltext.sources import MAX_ADDRESS, MAX_FIGURE_IMAGES, MAX_IMAGES


class OpenFigures:
    def __init__(self) -> None:
        self.depth = 0  # open floats
        self._start = 0  # where the outermost open float's blocks start
        self._caption: int | None = None  # the index of its own caption's block
        self._images: list[str] = []  # its images' `src`, as the page writes them
        self._figure = False  # it is a figure (not a table or another float)
        self._kept = 0  # images of the page so far

    def open(self, classes: frozenset[str], blocks: list[Block]) -> None:
        if not self.depth:
            self._start, self._caption, self._images = len(blocks), None, []
            self._figure = "ltx_figure" in classes
        self.depth += 1

    def image(self, attrs: list[tuple[str, str | None]]) -> None:
        """An image of the open float: its `src` kept as written (made absolute by the parser's finish)."""
        src = (dict(attrs).get("src") or "").strip()
        if src and len(src) <= MAX_ADDRESS and len(self._images) < MAX_FIGURE_IMAGES and self._kept < MAX_IMAGES:
            self._kept += 1
            self._images.append(src)

    def caption_ended(self, blocks: list[Block]) -> None:
        """The outermost float's own caption ended: the last block, if it is that caption."""
        if len(blocks) > self._start and blocks[-1].kind == CAPTION:
            self._caption = len(blocks) - 1

    def close(self, blocks: list[Block]) -> Block | None:
        """A float ends; the outermost one's caption in `blocks` becomes its figure, or the figure
        block to add when it has images and no caption."""
        self.depth -= 1
        if self.depth:
            return None
        images, self._images = tuple(self._images), []
        at = self._caption
        if at is not None and at < len(blocks) and (images or self._figure):
            blocks[at] = replace(blocks[at], kind=FIGURE, images=images)  # its caption's formulas kept
        elif images:
            return Block(FIGURE, "Figure (no caption)", images=images)
        return None
