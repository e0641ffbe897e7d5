"""A figure's or a page's image, read safely and laid out as half-block cells.

Images are untrusted bytes: Pillow reads them (never a decoder of our own), only in the formats
papers use, with the pixel count checked from the header before any pixel is decoded (a PNG
can claim 100,000 x 100,000 in a few bytes), and only the first frame of an animation. What
cannot be read is refused in one line (ImageRefused), never a traceback.

A terminal cell shows two pixels with the upper half block `▀`: its foreground colour is the
upper pixel, its background the lower one. So an image `width` cells wide is scaled to `width`
pixels across and twice its rows down, which keeps square pixels roughly square in a cell twice
as tall as it is wide."""

from __future__ import annotations

import io
from dataclasses import dataclass

from PIL import Image

from reader.errors import ReaderError

FORMATS = ("PNG", "JPEG", "GIF", "WEBP")  # what arXiv's pages and PDF renderers give
MAX_PIXELS = 25_000_000  # decoded as RGB that is 75 MB: the view's memory stays bounded
MAX_BYTES = 32 * 1024 * 1024  # of the file itself

RGB = tuple[int, int, int]
# Pillow's own guard, the same bound: past twice it, Image.open refuses before reading further.
Image.MAX_IMAGE_PIXELS = MAX_PIXELS


class ImageRefused(ReaderError):
    """Bytes that are not an image reader shows (not an image, too large, truncated)."""


class ImageNotDrawnNow(ImageRefused):
    """An image not shown for a passing reason (a drawing's child ran out of time, could not
    start, crashed): said, never remembered, tried again next time."""


@dataclass(frozen=True, slots=True)
class Cells:
    """An image as rows of half-block cells: each cell the (upper, lower) pixel colours."""

    rows: tuple[tuple[tuple[RGB, RGB], ...], ...]

    @property
    def width(self) -> int:
        return len(self.rows[0]) if self.rows else 0


def is_svg(data: bytes) -> bool:
    """Bytes that say they are an SVG drawing."""
    return data.lstrip()[:5].lower() in (b"<?xml", b"<svg ") or b"<svg" in data[:1024].lower()


def open_image(data: bytes) -> Image.Image:
    """The image's first frame as RGB (transparency over white, as on a page), or ImageRefused."""
    if len(data) > MAX_BYTES:
        raise ImageRefused(f"an image of {len(data) // (1024 * 1024)} MB (reader shows images up to {MAX_BYTES // (1024 * 1024)} MB)")
    if is_svg(data):  # drawn by svgdraw.py in a bounded process of its own, never here
        raise ImageRefused("an SVG drawing (reader shows its caption and link)")
    try:
        image = Image.open(io.BytesIO(data), formats=FORMATS)
    except Image.DecompressionBombError:  # Pillow's own limit, above ours
        raise ImageRefused(f"an image of more than {MAX_PIXELS:,} pixels") from None
    except Exception:  # UnidentifiedImageError, or what a damaged header makes a plugin raise
        raise ImageRefused("not an image reader can read (PNG, JPEG, GIF or WebP)") from None
    width, height = image.size
    if width < 1 or height < 1 or width * height > MAX_PIXELS:
        raise ImageRefused(f"an image of {width:,} x {height:,} pixels (reader shows up to {MAX_PIXELS:,} pixels)")
    try:
        image.seek(0)  # an animation: its first frame only, never a walk through its frames
        if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info):
            rgba = image.convert("RGBA")
            flat = Image.new("RGB", rgba.size, (255, 255, 255))
            flat.paste(rgba, mask=rgba.getchannel("A"))
            return flat
        return image.convert("RGB")
    except Exception:  # a damaged file raises what its decoder meets (EOFError, struct.error...)
        raise ImageRefused("a truncated or damaged image") from None


def cell_box(size: tuple[int, int], width: int, max_rows: int | None = None) -> tuple[int, int]:
    """The cells (columns, rows) an image of `size` pixels takes: `width` across (never wider than
    its own pixels), a row for two of its pixels down (a cell is about twice as tall as wide), at
    most `max_rows` (a tall image is narrowed). Half blocks and a terminal's own pixels alike."""
    image_width, image_height = size
    columns = max(1, min(width, image_width))
    pixel_rows = max(2, round(image_height * columns / image_width))
    if max_rows is not None and pixel_rows > 2 * max_rows:
        columns = max(1, round(columns * 2 * max_rows / pixel_rows))
        pixel_rows = 2 * max_rows
    return columns, (pixel_rows + 1) // 2


def half_blocks(image: Image.Image, width: int, max_rows: int | None = None) -> Cells:
    """`image` scaled to `width` cells across (never wider than its own pixels) and at most
    `max_rows` rows down, as half-block cells."""
    columns, rows = cell_box(image.size, width, max_rows)
    pixel_rows = 2 * rows
    small = image.resize((columns, pixel_rows), Image.Resampling.BOX, reducing_gap=2.0)
    data = small.tobytes()
    stride = 3 * columns

    def pixel(row: int, column: int) -> RGB:
        at = row * stride + 3 * column
        return (data[at], data[at + 1], data[at + 2])

    return Cells(tuple(tuple((pixel(row, column), pixel(row + 1, column)) for column in range(columns)) for row in range(0, pixel_rows, 2)))


@dataclass(frozen=True, slots=True)
class Pixels:
    """An image for a terminal that draws pixels itself: a PNG, and the cells it is placed over."""

    png: bytes
    columns: int
    rows: int


CELL_PIXELS = (12, 24)  # pixels sent for a cell: about a terminal's cell at its usual font sizes
MAX_SENT_PIXELS = 4_000_000  # what one image sends the terminal at most
MAX_SENT_BYTES = 4 * 1024 * 1024  # a PNG file sent as it is, at most (the terminal scales it)


def terminal_pixels(image: Image.Image, width: int, max_rows: int | None = None, original: bytes = b"") -> Pixels:
    """`image` (as open_image gave it) over the cells half blocks would take (cell_box), as a PNG
    for the terminal: the `original` file itself when it is an opaque PNG within the bounds (the
    terminal scales it: no work here), else the image scaled to about the cells' resolution."""
    columns, rows = cell_box(image.size, width, max_rows)
    if original.startswith(b"\x89PNG") and len(original) <= MAX_SENT_BYTES and image.width * image.height <= MAX_SENT_PIXELS:
        opened = Image.open(io.BytesIO(original))  # its header only: open_image has read it whole
        if opened.mode not in ("RGBA", "LA", "PA") and "transparency" not in opened.info:  # else the terminal's background shows
            return Pixels(original, columns, rows)
    scale = min(1.0, columns * CELL_PIXELS[0] / image.width, rows * CELL_PIXELS[1] / image.height)
    scale = min(scale, (MAX_SENT_PIXELS / (image.width * image.height)) ** 0.5)
    size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
    sent = image if size == image.size else image.resize(size, Image.Resampling.BILINEAR, reducing_gap=2.0)
    out = io.BytesIO()
    sent.save(out, format="PNG", compress_level=1)  # sent once, at once: speed over size
    return Pixels(out.getvalue(), columns, rows)
